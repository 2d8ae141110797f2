package digitalocean

import (
	v1 "k8s.io/api/core/v1"

	"ccm-sandbox/go/internal/providerkit"
)

// The service.beta.kubernetes.io/do-loadbalancer-* annotations this provider reads, as DigitalOcean's CCM
// names them.
const (
	annPrefix                 = "service.beta.kubernetes.io/do-loadbalancer-"
	AnnName                   = annPrefix + "name"
	AnnProtocol               = annPrefix + "protocol"
	AnnAlgorithm              = annPrefix + "algorithm"
	AnnSizeUnit               = annPrefix + "size-unit"
	AnnProxyProtocol          = annPrefix + "enable-proxy-protocol"
	AnnHealthCheckProtocol    = annPrefix + "healthcheck-protocol"
	AnnHealthCheckPort        = annPrefix + "healthcheck-port"
	AnnHealthCheckPath        = annPrefix + "healthcheck-path"
	AnnHealthCheckInterval    = annPrefix + "healthcheck-check-interval-seconds"
	AnnHealthCheckTimeout     = annPrefix + "healthcheck-response-timeout-seconds"
	AnnHealthCheckUnhealthy   = annPrefix + "healthcheck-unhealthy-threshold"
	AnnHealthCheckHealthy     = annPrefix + "healthcheck-healthy-threshold"
	AnnStickySessionsType     = annPrefix + "sticky-sessions-type"
	AnnStickySessionsCookie   = annPrefix + "sticky-sessions-cookie-name"
	AnnStickySessionsCookieTT = annPrefix + "sticky-sessions-cookie-ttl"
)

// lbOptions are a Service's annotations, parsed, with DigitalOcean's CCM defaults.
type lbOptions struct {
	protocol, algorithm string
	sizeUnit            int
	proxyProtocol       bool
	health              healthOptions
	sticky              *stickyOptions
}

type healthOptions struct {
	protocol, path                         string
	port, interval, timeout, unhealthy, ok int
}

type stickyOptions struct {
	cookie string
	ttl    int
}

// parseOptions reads a Service's annotations; the health check defaults to the protocol's own check on the
// first port's NodePort, every 3 s with a 5 s timeout, 3 failures to fail and 5 successes to pass.
func parseOptions(svc *v1.Service) (lbOptions, error) {
	r := providerkit.Annotations(svc.Annotations)
	o := lbOptions{
		protocol: providerkit.OneOf(r, AnnProtocol, "tcp", "tcp", "http", "https"), algorithm: providerkit.OneOf(r, AnnAlgorithm, "round_robin", "round_robin", "least_connections"),
		sizeUnit: r.Int(AnnSizeUnit, 1, 1, 100), proxyProtocol: r.Bool(AnnProxyProtocol, false),
	}
	firstNodePort := 0
	if len(svc.Spec.Ports) > 0 {
		firstNodePort = int(svc.Spec.Ports[0].NodePort)
	}
	hcDefault := "tcp"
	if o.protocol != "tcp" {
		hcDefault = "http"
	}
	o.health = healthOptions{
		protocol: providerkit.OneOf(r, AnnHealthCheckProtocol, hcDefault, "tcp", "http", "https"), path: r.String(AnnHealthCheckPath, "/"),
		port: r.Int(AnnHealthCheckPort, firstNodePort, 1, 65535), interval: r.Int(AnnHealthCheckInterval, 3, 3, 300),
		timeout: r.Int(AnnHealthCheckTimeout, 5, 3, 300), unhealthy: r.Int(AnnHealthCheckUnhealthy, 3, 2, 10), ok: r.Int(AnnHealthCheckHealthy, 5, 2, 10),
	}
	if providerkit.OneOf(r, AnnStickySessionsType, "none", "none", "cookies") == "cookies" {
		o.sticky = &stickyOptions{cookie: r.String(AnnStickySessionsCookie, "DO-CCM"), ttl: r.Int(AnnStickySessionsCookieTT, 300, 1, 86400)}
	}
	return o, r.Err("invalid annotations")
}
