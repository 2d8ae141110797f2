package hcloud

import (
	"fmt"
	"strings"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"ccm-sandbox/go/internal/providerkit"
)

// The load-balancer.hetzner.cloud/* Service annotations this provider reads: the names and meanings of
// Hetzner's own CCM, so a Service written for it works here unchanged.
const (
	annotationPrefix                = "load-balancer.hetzner.cloud/"
	AnnotationName                  = annotationPrefix + "name"
	AnnotationLocation              = annotationPrefix + "location"
	AnnotationNetworkZone           = annotationPrefix + "network-zone"
	AnnotationType                  = annotationPrefix + "type"
	AnnotationAlgorithmType         = annotationPrefix + "algorithm-type"
	AnnotationProtocol              = annotationPrefix + "protocol"
	AnnotationUsesProxyProtocol     = annotationPrefix + "uses-proxyprotocol"
	AnnotationHealthCheckProtocol   = annotationPrefix + "health-check-protocol"
	AnnotationHealthCheckPort       = annotationPrefix + "health-check-port"
	AnnotationHealthCheckInterval   = annotationPrefix + "health-check-interval"
	AnnotationHealthCheckTimeout    = annotationPrefix + "health-check-timeout"
	AnnotationHealthCheckRetries    = annotationPrefix + "health-check-retries"
	AnnotationHealthCheckHTTPPath   = annotationPrefix + "health-check-http-path"
	AnnotationHealthCheckHTTPDomain = annotationPrefix + "health-check-http-domain"
	AnnotationUsePrivateIP          = annotationPrefix + "use-private-ip"
	AnnotationHostname              = annotationPrefix + "hostname"
	AnnotationDisablePublicNetwork  = annotationPrefix + "disable-public-network"
	AnnotationDisablePrivateIngress = annotationPrefix + "disable-private-ingress"
	AnnotationIPv6Disabled          = annotationPrefix + "ipv6-disabled"
	AnnotationIPv4RDNS              = annotationPrefix + "ipv4-rdns"
	AnnotationIPv6RDNS              = annotationPrefix + "ipv6-rdns"
	AnnotationHTTPCertificates      = annotationPrefix + "http-certificates"
	AnnotationHTTPRedirectHTTP      = annotationPrefix + "http-redirect-http"
	labelServiceUID                 = "hcloud-ccm/service-uid"
	maxLoadBalancerNameLength       = 63
)

// lbOptions are one Service's load balancer settings: its annotations over the configured defaults.
type lbOptions struct {
	name                 string
	location             string
	networkZone          hcloud.NetworkZone
	lbType               string
	algorithm            hcloud.LoadBalancerAlgorithmType
	protocol             hcloud.LoadBalancerServiceProtocol
	proxyProtocol        bool
	healthCheck          healthCheck
	usePrivateIP         bool
	hostname             string
	disablePublicNetwork *bool
	privateIngress       bool
	ipv6                 bool
	// ipv4RDNS and ipv6RDNS are the reverse DNS names of the public addresses; nil: left as they are.
	ipv4RDNS *string
	ipv6RDNS *string
	// certificates are the https services' uploaded certificates, by name or id (http-certificates);
	// certificateIDs are the same, resolved through the API before the services are built.
	certificates   []string
	certificateIDs []int64
	redirectHTTP   bool
}

// healthCheck is the check of every service of the load balancer; port 0 means the service's node port.
type healthCheck struct {
	protocol   hcloud.LoadBalancerServiceProtocol
	port       int
	interval   time.Duration
	timeout    time.Duration
	retries    int
	httpPath   string
	httpDomain string
	// explicit: the Service chose the check's protocol, port or path; otherwise a Local Service's
	// healthCheckNodePort takes over (wantedServices).
	explicit bool
}

// parseAnnotations reads a Service's annotations over the defaults; every invalid value is reported,
// each naming its annotation.
func parseAnnotations(annotations map[string]string, d LoadBalancerDefaults) (lbOptions, error) {
	a := providerkit.Annotations(annotations)
	o := lbOptions{
		name:                 a.String(AnnotationName, ""),
		location:             a.String(AnnotationLocation, d.Location),
		networkZone:          hcloud.NetworkZone(a.String(AnnotationNetworkZone, d.NetworkZone)),
		lbType:               a.String(AnnotationType, d.Type),
		algorithm:            providerkit.OneOf(a, AnnotationAlgorithmType, d.Algorithm, algorithms...),
		protocol:             providerkit.OneOf(a, AnnotationProtocol, hcloud.LoadBalancerServiceProtocolTCP, serviceProtocols...),
		proxyProtocol:        a.Bool(AnnotationUsesProxyProtocol, d.ProxyProtocol),
		usePrivateIP:         a.Bool(AnnotationUsePrivateIP, d.UsePrivateIP),
		hostname:             a.String(AnnotationHostname, ""),
		disablePublicNetwork: a.OptionalBool(AnnotationDisablePublicNetwork, d.DisablePublicNetwork),
		privateIngress:       !a.Bool(AnnotationDisablePrivateIngress, !d.PrivateIngressEnabled),
		ipv6:                 !a.Bool(AnnotationIPv6Disabled, !d.IPv6Enabled),
		ipv4RDNS:             optionalString(a, AnnotationIPv4RDNS),
		ipv6RDNS:             optionalString(a, AnnotationIPv6RDNS),
		certificates:         commaList(a.String(AnnotationHTTPCertificates, "")),
		redirectHTTP:         a.Bool(AnnotationHTTPRedirectHTTP, false),
	}
	// An https service forwards plain HTTP to the node port, so its default check is tcp, not https.
	checkFallback := o.protocol
	if checkFallback == hcloud.LoadBalancerServiceProtocolHTTPS {
		checkFallback = hcloud.LoadBalancerServiceProtocolTCP
	}
	o.healthCheck = healthCheck{
		protocol: protocol(a, AnnotationHealthCheckProtocol, checkFallback),
		// 0: the service's node port.
		port:       a.Int(AnnotationHealthCheckPort, 0, 1, 65535),
		interval:   a.Duration(AnnotationHealthCheckInterval, d.HealthCheckInterval, time.Second),
		timeout:    a.Duration(AnnotationHealthCheckTimeout, d.HealthCheckTimeout, time.Second),
		retries:    a.Int(AnnotationHealthCheckRetries, d.HealthCheckRetries, 0, 5),
		httpPath:   a.String(AnnotationHealthCheckHTTPPath, "/"),
		httpDomain: a.String(AnnotationHealthCheckHTTPDomain, ""),
		explicit:   hasAny(annotations, AnnotationHealthCheckProtocol, AnnotationHealthCheckPort, AnnotationHealthCheckHTTPPath),
	}
	validate(a, annotations, o)
	if err := a.Err("invalid load balancer annotations"); err != nil {
		return lbOptions{}, err
	}
	return o, nil
}

func hasAny(annotations map[string]string, keys ...string) bool {
	for _, k := range keys {
		if _, ok := annotations[k]; ok {
			return true
		}
	}
	return false
}

// optionalString is the annotation's value, nil when it is not set.
func optionalString(a *providerkit.Reader, key string) *string {
	if v, ok := a.Lookup(key); ok {
		return &v
	}
	return nil
}

// serviceProtocols: https terminates TLS with uploaded certificates (http-certificates); managed
// certificates, which Hetzner issues through Let's Encrypt, are not created by this provider.
var serviceProtocols = []hcloud.LoadBalancerServiceProtocol{
	hcloud.LoadBalancerServiceProtocolTCP, hcloud.LoadBalancerServiceProtocolHTTP, hcloud.LoadBalancerServiceProtocolHTTPS,
}

// commaList splits a comma-separated annotation value, dropping empty entries.
func commaList(raw string) []string {
	var out []string
	for _, f := range strings.Split(raw, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// protocol is a health check's: tcp or http.
func protocol(a *providerkit.Reader, key string, fallback hcloud.LoadBalancerServiceProtocol) hcloud.LoadBalancerServiceProtocol {
	return providerkit.OneOf(a, key, fallback, hcloud.LoadBalancerServiceProtocolTCP, hcloud.LoadBalancerServiceProtocolHTTP)
}

func validate(a *providerkit.Reader, annotations map[string]string, o lbOptions) {
	if len(o.name) > maxLoadBalancerNameLength {
		a.Invalid(AnnotationName, o.name, fmt.Sprintf("must be at most %d characters", maxLoadBalancerNameLength))
	}
	_, hasLocation := annotations[AnnotationLocation]
	_, hasZone := annotations[AnnotationNetworkZone]
	if hasLocation && hasZone && o.location != "" && o.networkZone != "" {
		a.Invalid(AnnotationNetworkZone, string(o.networkZone), "set either "+AnnotationLocation+" or "+AnnotationNetworkZone)
	}
	https := o.protocol == hcloud.LoadBalancerServiceProtocolHTTPS
	switch {
	case https && len(o.certificates) == 0:
		a.Problemf("%s https needs %s: the uploaded certificates to terminate TLS with", AnnotationProtocol, AnnotationHTTPCertificates)
	case !https && len(o.certificates) > 0:
		a.Problemf("%s needs %s https", AnnotationHTTPCertificates, AnnotationProtocol)
	case !https && o.redirectHTTP:
		a.Problemf("%s needs %s https", AnnotationHTTPRedirectHTTP, AnnotationProtocol)
	}
	if o.healthCheck.protocol == hcloud.LoadBalancerServiceProtocolHTTP && !strings.HasPrefix(o.healthCheck.httpPath, "/") {
		a.Invalid(AnnotationHealthCheckHTTPPath, o.healthCheck.httpPath, "must start with /")
	}
}
