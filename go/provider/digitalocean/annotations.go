package digitalocean

import (
	"fmt"
	"strconv"

	v1 "k8s.io/api/core/v1"
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

// annotationReader parses annotations, keeping the first error (naming the annotation).
type annotationReader struct {
	ann map[string]string
	err error
}

func (r *annotationReader) str(key, def string, allowed ...string) string {
	v, ok := r.ann[key]
	if !ok {
		return def
	}
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	if len(allowed) > 0 && r.err == nil {
		r.err = fmt.Errorf("annotation %s: %q is not one of %v", key, v, allowed)
	}
	if len(allowed) > 0 {
		return def
	}
	return v
}

func (r *annotationReader) num(key string, def, lo, hi int) int {
	v, ok := r.ann[key]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if (err != nil || n < lo || n > hi) && r.err == nil {
		r.err = fmt.Errorf("annotation %s: %q is not a whole number from %d to %d", key, v, lo, hi)
		return def
	}
	return n
}

// parseOptions reads a Service's annotations; the health check defaults to the protocol's own check on the
// first port's NodePort, every 3 s with a 5 s timeout, 3 failures to fail and 5 successes to pass.
func parseOptions(svc *v1.Service) (lbOptions, error) {
	r := &annotationReader{ann: svc.Annotations}
	o := lbOptions{
		protocol: r.str(AnnProtocol, "tcp", "tcp", "http", "https"), algorithm: r.str(AnnAlgorithm, "round_robin", "round_robin", "least_connections"),
		sizeUnit: r.num(AnnSizeUnit, 1, 1, 100), proxyProtocol: r.str(AnnProxyProtocol, "false", "true", "false") == "true",
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
		protocol: r.str(AnnHealthCheckProtocol, hcDefault, "tcp", "http", "https"), path: r.str(AnnHealthCheckPath, "/"),
		port: r.num(AnnHealthCheckPort, firstNodePort, 1, 65535), interval: r.num(AnnHealthCheckInterval, 3, 3, 300),
		timeout: r.num(AnnHealthCheckTimeout, 5, 3, 300), unhealthy: r.num(AnnHealthCheckUnhealthy, 3, 2, 10), ok: r.num(AnnHealthCheckHealthy, 5, 2, 10),
	}
	if r.str(AnnStickySessionsType, "none", "none", "cookies") == "cookies" {
		o.sticky = &stickyOptions{cookie: r.str(AnnStickySessionsCookie, "DO-CCM"), ttl: r.num(AnnStickySessionsCookieTT, 300, 1, 86400)}
	}
	return o, r.err
}
