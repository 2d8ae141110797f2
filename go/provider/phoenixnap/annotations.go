package phoenixnap

import (
	v1 "k8s.io/api/core/v1"

	"ccm-sandbox/go/internal/providerkit"
)

// AnnotationIPLocation is phoenixNAP's CCM's one annotation: the location of the Service's IP block.
const AnnotationIPLocation = "phoenixnap.com/ip-location"

// The settings of the simcloud load balancer that carries a block's traffic are simcloud's own annotations
// (phoenixNAP has no load balancer, so its CCM has none for them).
const (
	AnnotationProxyProtocol = "loadbalancer.simcloud.dev/proxy-protocol"
	AnnotationHCProtocol    = "loadbalancer.simcloud.dev/health-check-protocol"
	AnnotationHCPath        = "loadbalancer.simcloud.dev/health-check-path"
	AnnotationHCInterval    = "loadbalancer.simcloud.dev/health-check-interval"
	AnnotationHCRetries     = "loadbalancer.simcloud.dev/health-check-retries"
)

// lbConfig is what a Service's annotations say.
type lbConfig struct {
	location, proxy, hcProtocol, hcPath string
	hcInterval, hcRetries               int
}

// parseAnnotations reads svc's annotations, every invalid one named at once.
func parseAnnotations(svc *v1.Service, location string) (lbConfig, error) {
	r := providerkit.Annotations(svc.Annotations)
	cfg := lbConfig{
		location:   r.String(AnnotationIPLocation, location),
		proxy:      providerkit.OneOf(r, AnnotationProxyProtocol, "none", "none", "v1", "v2"),
		hcProtocol: providerkit.OneOf(r, AnnotationHCProtocol, "tcp", "tcp", "http"),
		hcPath:     r.String(AnnotationHCPath, "/"),
		hcInterval: r.Int(AnnotationHCInterval, 2, 1, 60),
		hcRetries:  r.Int(AnnotationHCRetries, 2, 1, 10),
	}
	return cfg, r.Err("invalid annotations on Service " + svc.Namespace + "/" + svc.Name)
}
