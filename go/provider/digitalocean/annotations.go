package digitalocean

import (
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"

	"ccm-sandbox/go/internal/providerkit"
)

// The service.beta.kubernetes.io/do-loadbalancer-* annotations this provider reads, as DigitalOcean's CCM
// names them, and the load balancer's id, which it writes (with the type) as that CCM does.
const (
	annPrefix                 = "service.beta.kubernetes.io/do-loadbalancer-"
	AnnLoadBalancerID         = "kubernetes.digitalocean.com/load-balancer-id"
	AnnType                   = annPrefix + "type"
	AnnNetworkStack           = annPrefix + "network-stack"
	AnnOverrideHealthCheck    = annPrefix + "override-health-check"
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
	AnnCertificateID          = annPrefix + "certificate-id"
	AnnTLSPorts               = annPrefix + "tls-ports"
	AnnRedirectHTTPToHTTPS    = annPrefix + "redirect-http-to-https"
)

// defaultTLSPort is the port that terminates TLS when a certificate is given without tls-ports, as in
// DigitalOcean's CCM.
const defaultTLSPort = 443

// DigitalOcean's load balancer types and network stacks, as its API and CCM spell them.
const (
	TypeRegional        = "REGIONAL"
	TypeRegionalNetwork = "REGIONAL_NETWORK"
	StackIPv4           = "IPV4"
	StackDualstack      = "DUALSTACK"
)

// KubeProxyHealthPort is where kube-proxy answers /healthz on every node; DigitalOcean's CCM checks it unless
// the Service has a health check node port (externalTrafficPolicy Local).
const KubeProxyHealthPort = 10256

// lbOptions are a Service's annotations, parsed, with DigitalOcean's CCM defaults.
type lbOptions struct {
	// lbType defaults to REGIONAL_NETWORK, as DigitalOcean's CCM's does; networkStack is "" when not given.
	lbType, networkStack string
	protocol, algorithm  string
	sizeUnit             int
	proxyProtocol        bool
	health               healthOptions
	sticky               *stickyOptions
	tls                  tlsOptions
}

// tlsOptions: the ports that terminate TLS with a certificate uploaded to DigitalOcean (its id), and whether
// the load balancer redirects http to https.
type tlsOptions struct {
	certificateID string
	ports         map[int32]bool
	redirect      bool
}

type healthOptions struct {
	protocol, path                         string
	port, interval, timeout, unhealthy, ok int
	// proxyProtocol is false for the default check (kube-proxy's health answers no PROXY header) and nil
	// (the load balancer's setting) under override-health-check, as DigitalOcean's CCM sends it.
	proxyProtocol *bool
}

type stickyOptions struct {
	cookie string
	ttl    int
}

// parseOptions reads a Service's annotations. The health check is DigitalOcean's CCM's: HTTP /healthz on the
// Service's health check node port, else on kube-proxy's port, unless override-health-check is set (present,
// whatever its value): then the protocol (default http with a path, else tcp), path and port annotations
// apply, the port naming a Service port whose NodePort is checked (default: the first TCP port's). Every 3 s
// with a 5 s timeout, 3 failures to fail and 5 successes to pass.
func parseOptions(svc *v1.Service) (lbOptions, error) {
	r := providerkit.Annotations(svc.Annotations)
	o := lbOptions{
		lbType:       providerkit.OneOf(r, AnnType, TypeRegionalNetwork, TypeRegional, TypeRegionalNetwork),
		networkStack: providerkit.OneOf(r, AnnNetworkStack, "", StackIPv4, StackDualstack),
		protocol:     providerkit.OneOf(r, AnnProtocol, "tcp", "tcp", "http", "https"), algorithm: providerkit.OneOf(r, AnnAlgorithm, "round_robin", "round_robin", "least_connections"),
		sizeUnit: r.Int(AnnSizeUnit, 1, 1, 100), proxyProtocol: r.Bool(AnnProxyProtocol, false),
	}
	o.health = healthOptions{
		interval: r.Int(AnnHealthCheckInterval, 3, 3, 300), timeout: r.Int(AnnHealthCheckTimeout, 5, 3, 300),
		unhealthy: r.Int(AnnHealthCheckUnhealthy, 3, 2, 10), ok: r.Int(AnnHealthCheckHealthy, 5, 2, 10),
	}
	if _, override := svc.Annotations[AnnOverrideHealthCheck]; override {
		overriddenHealthCheck(svc, r, &o.health)
	} else {
		o.health.protocol, o.health.path, o.health.port, o.health.proxyProtocol = "http", "/healthz", KubeProxyHealthPort, new(bool)
		if svc.Spec.HealthCheckNodePort != 0 {
			o.health.port = int(svc.Spec.HealthCheckNodePort)
		}
	}
	o.tls = parseTLS(r)
	if o.tls.certificateID != "" && o.lbType == TypeRegionalNetwork {
		r.Problemf("%s needs %s %s: a %s load balancer passes connections through and cannot terminate TLS", AnnCertificateID, AnnType, TypeRegional, TypeRegionalNetwork)
	}
	if providerkit.OneOf(r, AnnStickySessionsType, "none", "none", "cookies") == "cookies" {
		o.sticky = &stickyOptions{cookie: r.String(AnnStickySessionsCookie, "DO-CCM"), ttl: r.Int(AnnStickySessionsCookieTT, 300, 1, 86400)}
	}
	return o, r.Err("invalid annotations")
}

// overriddenHealthCheck is the health check the annotations describe, under override-health-check.
func overriddenHealthCheck(svc *v1.Service, r *providerkit.Reader, h *healthOptions) {
	h.path = r.String(AnnHealthCheckPath, "")
	fallback := "tcp"
	if h.path != "" {
		fallback = "http"
	}
	h.protocol = providerkit.OneOf(r, AnnHealthCheckProtocol, fallback, "tcp", "http", "https")
	want := r.Int(AnnHealthCheckPort, 0, 1, 65535)
	for _, p := range svc.Spec.Ports {
		if (p.Protocol == v1.ProtocolTCP || p.Protocol == "") && (want == 0 || int(p.Port) == want) {
			h.port = int(p.NodePort)
			return
		}
	}
	if want != 0 {
		r.Invalid(AnnHealthCheckPort, strconv.Itoa(want), "must be one of the Service's TCP ports")
	} else {
		r.Problemf("no TCP port to health check")
	}
}

// parseTLS reads certificate-id, tls-ports (comma-separated; default 443 with a certificate) and
// redirect-http-to-https, as DigitalOcean's CCM names them.
func parseTLS(r *providerkit.Reader) tlsOptions {
	t := tlsOptions{certificateID: r.String(AnnCertificateID, ""), ports: map[int32]bool{}, redirect: r.Bool(AnnRedirectHTTPToHTTPS, false)}
	raw, given := r.Lookup(AnnTLSPorts)
	if !given && t.certificateID != "" {
		t.ports[defaultTLSPort] = true
	}
	for _, f := range strings.Split(raw, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > 65535 {
			r.Invalid(AnnTLSPorts, raw, "must be comma-separated port numbers")
			return t
		}
		t.ports[int32(n)] = true
	}
	if len(t.ports) > 0 && t.certificateID == "" {
		r.Problemf("%s needs %s: the certificate to terminate TLS with", AnnTLSPorts, AnnCertificateID)
	}
	return t
}
