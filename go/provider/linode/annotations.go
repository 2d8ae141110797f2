package linode

import (
	"strings"

	"github.com/linode/linodego/v2"
	v1 "k8s.io/api/core/v1"

	"ccm-sandbox/go/internal/providerkit"
)

// The service.beta.kubernetes.io/linode-loadbalancer-* annotations this provider reads (Linode's names).
const (
	annPrefix        = "service.beta.kubernetes.io/linode-loadbalancer-"
	AnnProtocol      = annPrefix + "default-protocol"
	AnnProxyProtocol = annPrefix + "default-proxy-protocol"
	AnnAlgorithm     = annPrefix + "default-algorithm"
	AnnCheckType     = annPrefix + "check-type"
	AnnCheckPath     = annPrefix + "check-path"
	AnnCheckInterval = annPrefix + "check-interval"
	AnnCheckTimeout  = annPrefix + "check-timeout"
	AnnCheckAttempts = annPrefix + "check-attempts"
	AnnThrottle      = annPrefix + "throttle"
	AnnTags          = annPrefix + "tags"
)

// lbOptions are a Service's NodeBalancer settings, from its annotations with Linode's CCM defaults.
type lbOptions struct {
	protocol      linodego.ConfigProtocol
	proxyProtocol linodego.ConfigProxyProtocol
	algorithm     linodego.ConfigAlgorithm
	check         linodego.ConfigCheck
	checkPath     string
	interval      int
	timeout       int
	attempts      int
	throttle      int
	tags          []string
	// ports is each Service port's protocol and certificate (tls.go).
	ports map[int32]portTLS
}

// parseOptions reads a Service's annotations; every bad one is reported, each naming its annotation.
func parseOptions(svc *v1.Service) (lbOptions, error) {
	r := providerkit.Annotations(svc.Annotations)
	o := lbOptions{
		protocol:      providerkit.OneOf(r, AnnProtocol, linodego.ProtocolTCP, linodego.ProtocolTCP, linodego.ProtocolHTTP, linodego.ProtocolHTTPS),
		proxyProtocol: providerkit.OneOf(r, AnnProxyProtocol, linodego.ProxyProtocolNone, linodego.ProxyProtocolNone, linodego.ProxyProtocolV1, linodego.ProxyProtocolV2),
		algorithm:     providerkit.OneOf(r, AnnAlgorithm, linodego.AlgorithmRoundRobin, linodego.AlgorithmRoundRobin, linodego.AlgorithmLeastConn, linodego.AlgorithmSource),
		check:         providerkit.OneOf(r, AnnCheckType, linodego.CheckConnection, linodego.CheckNone, linodego.CheckConnection, linodego.CheckHTTP, linodego.CheckHTTPBody),
		checkPath:     svc.Annotations[AnnCheckPath],
		interval:      r.Int(AnnCheckInterval, 5, 2, 3600),
		timeout:       r.Int(AnnCheckTimeout, 3, 1, 30),
		attempts:      r.Int(AnnCheckAttempts, 2, 1, 30),
		throttle:      r.Int(AnnThrottle, 20, 0, 20),
	}
	for _, t := range strings.Split(svc.Annotations[AnnTags], ",") {
		if t = strings.TrimSpace(t); t != "" {
			o.tags = append(o.tags, t)
		}
	}
	return o, r.Err("invalid annotations")
}
