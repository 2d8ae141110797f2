package hcloud

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
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
}

// parseAnnotations reads a Service's annotations over the defaults; every invalid value is reported,
// each naming its annotation.
func parseAnnotations(annotations map[string]string, d LoadBalancerDefaults) (lbOptions, error) {
	a := annotationReader{values: annotations}
	o := lbOptions{
		name:                 a.str(AnnotationName, ""),
		location:             a.str(AnnotationLocation, d.Location),
		networkZone:          hcloud.NetworkZone(a.str(AnnotationNetworkZone, d.NetworkZone)),
		lbType:               a.str(AnnotationType, d.Type),
		algorithm:            a.algorithm(d.Algorithm),
		protocol:             a.protocol(AnnotationProtocol, hcloud.LoadBalancerServiceProtocolTCP),
		proxyProtocol:        a.boolean(AnnotationUsesProxyProtocol, d.ProxyProtocol),
		usePrivateIP:         a.boolean(AnnotationUsePrivateIP, d.UsePrivateIP),
		hostname:             a.str(AnnotationHostname, ""),
		disablePublicNetwork: a.optionalBool(AnnotationDisablePublicNetwork, d.DisablePublicNetwork),
		privateIngress:       !a.boolean(AnnotationDisablePrivateIngress, !d.PrivateIngressEnabled),
		ipv6:                 !a.boolean(AnnotationIPv6Disabled, !d.IPv6Enabled),
	}
	o.healthCheck = healthCheck{
		protocol:   a.protocol(AnnotationHealthCheckProtocol, o.protocol),
		port:       a.port(AnnotationHealthCheckPort),
		interval:   a.duration(AnnotationHealthCheckInterval, d.HealthCheckInterval),
		timeout:    a.duration(AnnotationHealthCheckTimeout, d.HealthCheckTimeout),
		retries:    a.integer(AnnotationHealthCheckRetries, d.HealthCheckRetries),
		httpPath:   a.str(AnnotationHealthCheckHTTPPath, "/"),
		httpDomain: a.str(AnnotationHealthCheckHTTPDomain, ""),
	}
	a.validate(o)
	if len(a.problems) > 0 {
		sort.Strings(a.problems)
		return lbOptions{}, errors.New("invalid load balancer annotations: " + strings.Join(a.problems, "; "))
	}
	return o, nil
}

type annotationReader struct {
	values   map[string]string
	problems []string
}

func (a *annotationReader) problem(key, raw, want string) {
	a.problems = append(a.problems, fmt.Sprintf("%s=%q: %s", key, raw, want))
}

func (a *annotationReader) raw(key string) (string, bool) {
	v, ok := a.values[key]
	return strings.TrimSpace(v), ok
}

func (a *annotationReader) str(key, fallback string) string {
	if v, ok := a.raw(key); ok {
		return v
	}
	return fallback
}

func (a *annotationReader) optionalBool(key string, fallback *bool) *bool {
	raw, ok := a.raw(key)
	if !ok {
		return fallback
	}
	b, err := strconv.ParseBool(raw)
	if err != nil {
		a.problem(key, raw, "must be true or false")
		return fallback
	}
	return &b
}

func (a *annotationReader) boolean(key string, fallback bool) bool {
	if b := a.optionalBool(key, nil); b != nil {
		return *b
	}
	return fallback
}

func (a *annotationReader) duration(key string, fallback time.Duration) time.Duration {
	raw, ok := a.raw(key)
	if !ok {
		return fallback
	}
	d, err := time.ParseDuration(raw)
	if err != nil || d < time.Second {
		a.problem(key, raw, "must be a duration of at least 1s, like 3s or 1m")
		return fallback
	}
	return d
}

func (a *annotationReader) integer(key string, fallback int) int {
	raw, ok := a.raw(key)
	if !ok {
		return fallback
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 0 || n > 5 {
		a.problem(key, raw, "must be a whole number from 0 to 5")
		return fallback
	}
	return n
}

func (a *annotationReader) port(key string) int {
	raw, ok := a.raw(key)
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > 65535 {
		a.problem(key, raw, "must be a port from 1 to 65535")
		return 0
	}
	return n
}

func (a *annotationReader) algorithm(fallback hcloud.LoadBalancerAlgorithmType) hcloud.LoadBalancerAlgorithmType {
	raw, ok := a.raw(AnnotationAlgorithmType)
	if !ok {
		return fallback
	}
	alg, err := parseAlgorithm(strings.ToLower(raw))
	if err != nil {
		a.problem(AnnotationAlgorithmType, raw, err.Error())
		return fallback
	}
	return alg
}

// protocol accepts tcp and http; https needs certificates, which this provider does not manage.
func (a *annotationReader) protocol(key string, fallback hcloud.LoadBalancerServiceProtocol) hcloud.LoadBalancerServiceProtocol {
	raw, ok := a.raw(key)
	if !ok {
		return fallback
	}
	switch p := hcloud.LoadBalancerServiceProtocol(strings.ToLower(raw)); p {
	case hcloud.LoadBalancerServiceProtocolTCP, hcloud.LoadBalancerServiceProtocolHTTP:
		return p
	}
	a.problem(key, raw, "allowed: tcp, http")
	return fallback
}

func (a *annotationReader) validate(o lbOptions) {
	if len(o.name) > maxLoadBalancerNameLength {
		a.problem(AnnotationName, o.name, fmt.Sprintf("must be at most %d characters", maxLoadBalancerNameLength))
	}
	_, hasLocation := a.values[AnnotationLocation]
	_, hasZone := a.values[AnnotationNetworkZone]
	if hasLocation && hasZone && o.location != "" && o.networkZone != "" {
		a.problem(AnnotationNetworkZone, string(o.networkZone), "set either "+AnnotationLocation+" or "+AnnotationNetworkZone)
	}
	if o.healthCheck.protocol == hcloud.LoadBalancerServiceProtocolHTTP && !strings.HasPrefix(o.healthCheck.httpPath, "/") {
		a.problem(AnnotationHealthCheckHTTPPath, o.healthCheck.httpPath, "must start with /")
	}
}
