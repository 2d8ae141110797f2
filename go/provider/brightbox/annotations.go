package brightbox

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	brightbox "github.com/brightbox/gobrightbox/v2"
	"github.com/brightbox/gobrightbox/v2/enums/balancingpolicy"
	"github.com/brightbox/gobrightbox/v2/enums/healthchecktype"
	"github.com/brightbox/gobrightbox/v2/enums/listenerprotocol"
	"github.com/brightbox/gobrightbox/v2/enums/proxyprotocol"
	v1 "k8s.io/api/core/v1"
	servicehelpers "k8s.io/cloud-provider/service/helpers"

	"ccm-sandbox/go/internal/providerkit"
)

// Brightbox's CCM's Service annotations (the health-check interval's is under aws-, as in its source).
const (
	annotationPrefix             = "service.beta.kubernetes.io/brightbox-load-balancer-"
	AnnotationPolicy             = annotationPrefix + "policy"
	AnnotationListenerProtocol   = annotationPrefix + "listener-protocol"
	AnnotationListenerIdle       = annotationPrefix + "listener-idle-timeout"
	AnnotationListenerProxy      = annotationPrefix + "listener-proxy-protocol"
	AnnotationSSLPorts           = annotationPrefix + "ssl-ports"
	AnnotationSSLDomains         = annotationPrefix + "ssl-domains"
	AnnotationCloudIP            = annotationPrefix + "cloudip-allocations"
	AnnotationHCHealthyThreshold = annotationPrefix + "healthcheck-healthy-threshold"
	AnnotationHCUnhealthy        = annotationPrefix + "healthcheck-unhealthy-threshold"
	AnnotationHCProtocol         = annotationPrefix + "healthcheck-protocol"
	AnnotationHCRequest          = annotationPrefix + "healthcheck-request"
	AnnotationHCTimeout          = annotationPrefix + "healthcheck-timeout"
	AnnotationHCInterval         = "service.beta.kubernetes.io/aws-load-balancer-healthcheck-interval"
)

// Brightbox's defaults: HTTP listeners, 443 always an SSL port, and a health check on port 80 when the
// Service has no port to check.
const (
	sslPort          = 443
	defaultCheckPort = 80
)

var cloudIPID = regexp.MustCompile(`^cip-[0-9a-z]{5,11}$`)

// lbSpec is what a Service asks of its load balancer and cloud IP.
type lbSpec struct {
	policy    balancingpolicy.Enum // 0: the API's default
	listeners []brightbox.LoadBalancerListener
	check     brightbox.LoadBalancerHealthcheck
	domains   []string
	https     bool
	// cloudIP is the annotation's cloud IP id; else address, spec.loadBalancerIP; else the cloud IP named as
	// the load balancer.
	cloudIP, address string
	// ports is the firewall rule's destination ports: the NodePorts and the health-check NodePort.
	ports string
}

// enum reads key as one of an enum's values, parsed by gobrightbox's parser for the enum (valid lists them).
func enum[E any](r *providerkit.Reader, key string, fallback E, parse func(string) (E, error), valid []string) E {
	return providerkit.Parse(r, key, fallback, func(raw string) (E, error) {
		v, err := parse(raw)
		if err != nil {
			return v, fmt.Errorf("must be one of: %s", strings.Join(valid, ", "))
		}
		return v, nil
	})
}

// parseService reads svc as Brightbox's CCM does and refuses what it refuses, every problem named at once.
func parseService(svc *v1.Service) (lbSpec, error) {
	r := providerkit.Annotations(svc.Annotations)
	protocol := enum(r, AnnotationListenerProtocol, listenerprotocol.Http, listenerprotocol.ParseEnum, listenerprotocol.ValidStrings)
	proxy := enum(r, AnnotationListenerProxy, proxyprotocol.Enum(0), proxyprotocol.ParseEnum, proxyprotocol.ValidStrings)
	idle := uint(r.Int(AnnotationListenerIdle, 0, 0, math.MaxInt))
	spec := lbSpec{policy: enum(r, AnnotationPolicy, balancingpolicy.Enum(0), balancingpolicy.ParseEnum, balancingpolicy.ValidStrings), address: svc.Spec.LoadBalancerIP}
	spec.cloudIP = providerkit.Parse(r, AnnotationCloudIP, "", func(raw string) (string, error) {
		if !cloudIPID.MatchString(raw) {
			return "", fmt.Errorf("must be a cloud IP id matching %s", cloudIPID)
		}
		return raw, nil
	})
	sslPorts, hasSSL := r.Lookup(AnnotationSSLPorts)
	domains, hasDomains := r.Lookup(AnnotationSSLDomains)
	if hasDomains {
		spec.domains = strings.Split(domains, ",")
	}
	switch {
	case len(svc.Spec.Ports) == 0:
		r.Problemf("the Service has no ports")
	case svc.Spec.SessionAffinity != "" && svc.Spec.SessionAffinity != v1.ServiceAffinityNone:
		r.Problemf("session affinity %s is not supported", svc.Spec.SessionAffinity)
	case protocol == listenerprotocol.Tcp && (hasSSL || hasDomains):
		r.Problemf("SSL ports and domains need the http protocol, not tcp")
	case hasSSL && !hasDomains:
		r.Problemf("%s needs %s: the domains to certify", AnnotationSSLPorts, AnnotationSSLDomains)
	case spec.cloudIP != "" && spec.address != "":
		r.Problemf("spec.loadBalancerIP and %s exclude each other", AnnotationCloudIP)
	}
	ssl := map[string]bool{}
	for _, p := range strings.Split(sslPorts, ",") {
		ssl[strings.TrimSpace(p)] = hasSSL
	}
	var nodePorts []string
	for _, p := range svc.Spec.Ports {
		if p.Protocol != "" && p.Protocol != v1.ProtocolTCP {
			r.Problemf("port %d is %s: only TCP ports are supported", p.Port, p.Protocol)
		}
		l := brightbox.LoadBalancerListener{Protocol: protocol, In: uint16(p.Port), Out: uint16(p.NodePort), Timeout: idle, ProxyProtocol: proxy}
		if protocol != listenerprotocol.Tcp && (p.Port == sslPort || ssl[strconv.Itoa(int(p.Port))] || ssl[p.Name]) {
			l.Protocol, spec.https = listenerprotocol.Https, true
		}
		spec.listeners = append(spec.listeners, l)
		nodePorts = append(nodePorts, strconv.Itoa(int(p.NodePort)))
	}
	if svc.Spec.HealthCheckNodePort != 0 {
		nodePorts = append(nodePorts, strconv.Itoa(int(svc.Spec.HealthCheckNodePort)))
	}
	spec.ports = strings.Join(nodePorts, ",")
	spec.check = healthCheck(r, svc, protocol)
	return spec, r.Err("invalid Service " + svc.Namespace + "/" + svc.Name)
}

// healthCheck is Brightbox's: the kube-proxy health check on its NodePort for a Service with only local
// traffic, else the first port's NodePort over TCP (for TCP listeners) or HTTP at /healthz; each part can be
// set by its annotation. Zero times and thresholds leave the API's defaults.
func healthCheck(r *providerkit.Reader, svc *v1.Service, listener listenerprotocol.Enum) brightbox.LoadBalancerHealthcheck {
	path, port := "", uint16(0)
	if servicehelpers.NeedsHealthCheck(svc) && svc.Spec.HealthCheckNodePort != 0 {
		path, port = "/healthz", uint16(svc.Spec.HealthCheckNodePort)
	}
	fallback := healthchecktype.Http
	if listener == listenerprotocol.Tcp && path == "" {
		fallback = healthchecktype.Tcp
	}
	kind := enum(r, AnnotationHCProtocol, fallback, healthchecktype.ParseEnum, healthchecktype.ValidStrings)
	if port == 0 && len(svc.Spec.Ports) > 0 {
		port = uint16(svc.Spec.Ports[0].NodePort)
	}
	if port == 0 {
		port = defaultCheckPort
	}
	if path == "" {
		path = "/healthz"
	}
	request := providerkit.Parse(r, AnnotationHCRequest, path, func(raw string) (string, error) {
		if u, err := url.Parse("http://host" + raw); err != nil || u.Path != raw {
			return "", fmt.Errorf("must be a URL path")
		}
		return raw, nil
	})
	if kind == healthchecktype.Tcp {
		request = "/"
	}
	number := func(key string) uint { return uint(r.Int(key, 0, 0, math.MaxInt)) }
	return brightbox.LoadBalancerHealthcheck{
		Type: kind, Port: port, Request: request, Interval: number(AnnotationHCInterval), Timeout: number(AnnotationHCTimeout),
		ThresholdUp: number(AnnotationHCHealthyThreshold), ThresholdDown: number(AnnotationHCUnhealthy),
	}
}
