package simcloud

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/netip"
	"sort"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"

	"ccm-sandbox/go/provider/simcloud/client"
)

// Labels on every resource made for a Service. With the cluster name and the Service UID they let a
// restarted CCM find what it made before, and the sandbox's leak check and console recognise them, so they
// are the TypeScript CCM's and must not change.
const (
	labelManagedBy  = "simcloud.dev/managed-by"
	labelCluster    = "simcloud.dev/cluster"
	labelServiceUID = "simcloud.dev/service-uid"
	labelService    = "simcloud.dev/service"
	managedBy       = "simcloud-ccm"
	// sourceRangesAnnotation is upstream's fallback for spec.loadBalancerSourceRanges.
	sourceRangesAnnotation = "service.beta.kubernetes.io/load-balancer-source-ranges"
	// vipIndex is the address of an IP block that a load balancer created from it takes as VIP.
	vipIndex = 2
)

// fit cuts value to max characters and trims trailing non-alphanumerics (simcloud names and label values).
func fit(value string, max int) string {
	if len(value) > max {
		value = value[:max]
	}
	return strings.TrimRightFunc(value, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
}

// resourceName is "<cluster, at most 29>-<upstream's default load balancer name>", at most 63 characters.
func resourceName(clusterName string, svc *v1.Service) string {
	return fit(clusterName, 29) + "-" + cloudprovider.DefaultLoadBalancerName(svc)
}

func serviceKey(svc *v1.Service) string { return svc.Namespace + "/" + svc.Name }

func ownerLabels(clusterName string, svc *v1.Service) map[string]string {
	return map[string]string{
		labelManagedBy:  managedBy,
		labelCluster:    clusterName,
		labelServiceUID: string(svc.UID),
		labelService:    fit(svc.Namespace+"."+svc.Name, 63),
	}
}

func ownerSelector(clusterName string, svc *v1.Service) string {
	return labelCluster + "=" + clusterName + "," + labelServiceUID + "=" + string(svc.UID)
}

// lbPlan is the wanted load balancer of a Service, computed without any cloud call.
type lbPlan struct {
	algorithm       string
	sessionAffinity string
	services        []client.LoadBalancerService
	rules           []client.FirewallRule
	// sourceCIDRs are the allowed client ranges (0.0.0.0/0 when the Service names none).
	sourceCIDRs []string
	// requestedIP is spec.loadBalancerIP, when set.
	requestedIP string
}

// lbSpec is the wanted mutable fields of a load balancer.
type lbSpec struct {
	algorithm       string
	sessionAffinity string
	services        []client.LoadBalancerService
	targets         []client.LoadBalancerTarget
	sourceRanges    []string
}

// spec is the plan's load balancer with targets. Source ranges go on the load balancer only when
// onLoadBalancer (strategy ip-block: strategy lb enforces them with the firewall policy); 0.0.0.0/0 alone
// is no restriction at all.
func (p lbPlan) spec(targets []client.LoadBalancerTarget, onLoadBalancer bool) lbSpec {
	ranges := []string{}
	if onLoadBalancer && !(len(p.sourceCIDRs) == 1 && p.sourceCIDRs[0] == "0.0.0.0/0") {
		ranges = append(ranges, p.sourceCIDRs...)
	}
	return lbSpec{algorithm: p.algorithm, sessionAffinity: p.sessionAffinity, services: p.services, targets: targets, sourceRanges: ranges}
}

// currentSpec is what lb is now.
func currentSpec(lb *client.LoadBalancer) lbSpec {
	return lbSpec{algorithm: lb.Algorithm, sessionAffinity: lb.SessionAffinity, services: lb.Services, targets: lb.Targets, sourceRanges: lb.SourceRanges}
}

// planLoadBalancer turns a Service and its parsed annotations into the wanted listeners and firewall rules;
// a Service that cannot be served as asked is an InvalidServiceError naming every problem.
func planLoadBalancer(svc *v1.Service, cfg lbConfig) (lbPlan, error) {
	sources, problems := sourceRanges(svc)
	problems = append(problems, portProblems(svc, cfg)...)
	if len(problems) > 0 {
		return lbPlan{}, &InvalidServiceError{What: "invalid service for a simcloud load balancer", Problems: problems}
	}
	plan := lbPlan{algorithm: cfg.algorithm, sessionAffinity: "none", sourceCIDRs: sources, requestedIP: svc.Spec.LoadBalancerIP}
	if svc.Spec.SessionAffinity == v1.ServiceAffinityClientIP {
		plan.sessionAffinity = "source_ip"
	}
	rulePorts := map[rulePort]bool{}
	for _, port := range svc.Spec.Ports {
		listener := listenerFor(svc, port, cfg)
		plan.services = append(plan.services, listener)
		nodePort := rulePort{protocol: "tcp", port: listener.DestinationPort}
		if listener.Protocol == "udp" {
			nodePort.protocol = "udp"
		}
		rulePorts[nodePort] = true
		if listener.HealthCheck.Protocol != "none" {
			rulePorts[rulePort{protocol: "tcp", port: *listener.HealthCheck.Port}] = true
		}
	}
	if err := withTLS(plan.services, cfg); err != nil {
		return lbPlan{}, err
	}
	sort.Slice(plan.services, func(a, b int) bool { return plan.services[a].ListenPort < plan.services[b].ListenPort })
	for _, rp := range sortedRulePorts(rulePorts) {
		ports := strconv.Itoa(rp.port)
		plan.rules = append(plan.rules, client.FirewallRule{
			Direction: "inbound", Protocol: rp.protocol, Ports: &ports, SourceCIDRs: sources, DestinationCIDRs: []string{},
			Description: fmt.Sprintf("%s node port %d", serviceKey(svc), rp.port),
		})
	}
	return plan, nil
}

// rulePort is a node port the firewall opens, over tcp or udp.
type rulePort struct {
	protocol string
	port     int
}

func sortedRulePorts(set map[rulePort]bool) []rulePort {
	ports := make([]rulePort, 0, len(set))
	for p := range set {
		ports = append(ports, p)
	}
	sort.Slice(ports, func(a, b int) bool {
		return cmp.Or(cmp.Compare(ports[a].port, ports[b].port), cmp.Compare(ports[a].protocol, ports[b].protocol)) < 0
	})
	return ports
}

// sourceRanges: spec.loadBalancerSourceRanges, else upstream's annotation, else 0.0.0.0/0.
func sourceRanges(svc *v1.Service) ([]string, []string) {
	raw, where := svc.Spec.LoadBalancerSourceRanges, "spec.loadBalancerSourceRanges"
	if len(raw) == 0 {
		raw, where = strings.Split(svc.Annotations[sourceRangesAnnotation], ","), sourceRangesAnnotation
	}
	var cidrs, problems []string
	for _, r := range raw {
		r = strings.TrimSpace(r)
		if r == "" {
			continue
		}
		if p, err := netip.ParsePrefix(r); err != nil || !p.Addr().Is4() {
			problems = append(problems, fmt.Sprintf("%s entry %q must be an IPv4 CIDR like 203.0.113.0/24", where, r))
			continue
		}
		cidrs = append(cidrs, r)
	}
	if len(cidrs) == 0 {
		cidrs = []string{"0.0.0.0/0"}
	}
	return cidrs, problems
}

func portProblems(svc *v1.Service, cfg lbConfig) []string {
	var problems []string
	present := map[int32]bool{}
	for _, port := range svc.Spec.Ports {
		label := fmt.Sprintf("spec.ports[%s]", cmp.Or(port.Name, strconv.Itoa(int(port.Port))))
		// A simcloud load balancer has one listener per port: 53/TCP and 53/UDP cannot share it.
		if present[port.Port] {
			problems = append(problems, fmt.Sprintf("%s: port %d is listed twice (one listener per port on a simcloud load balancer)", label, port.Port))
		}
		present[port.Port] = true
		if port.Protocol != "" && port.Protocol != v1.ProtocolTCP && port.Protocol != v1.ProtocolUDP {
			problems = append(problems, fmt.Sprintf("%s protocol %s is not supported; allowed: TCP, UDP", label, port.Protocol))
		} else if port.NodePort == 0 {
			problems = append(problems, label+" has no nodePort (allocateLoadBalancerNodePorts=false is not supported)")
		}
	}
	for port := range cfg.portOverrides {
		if !present[port] {
			problems = append(problems, fmt.Sprintf("annotation %s%d names no port of the Service", AnnotationPortPrefix, port))
		}
	}
	sort.Strings(problems)
	return problems
}

// needsHealthCheckNodePort is upstream's rule: externalTrafficPolicy Local gives a health check node port.
func needsHealthCheckNodePort(svc *v1.Service) bool {
	return svc.Spec.Type == v1.ServiceTypeLoadBalancer && svc.Spec.ExternalTrafficPolicy == v1.ServiceExternalTrafficPolicyLocal && svc.Spec.HealthCheckNodePort > 0
}

func explicitHealthCheck(svc *v1.Service) bool {
	for _, key := range []string{AnnotationHealthCheckProtocol, AnnotationHealthCheckPort, AnnotationHealthCheckPath} {
		if _, ok := svc.Annotations[key]; ok {
			return true
		}
	}
	return false
}

// withTLS puts the certificate on every https listener and the redirect on every http one, as the TypeScript
// CCM does; a redirect needs an https listener (the first, by Service port order, is where it goes).
func withTLS(services []client.LoadBalancerService, cfg lbConfig) error {
	httpsPort := 0
	for _, s := range services {
		if s.Protocol == "https" && httpsPort == 0 {
			httpsPort = s.ListenPort
		}
	}
	if cfg.redirectHTTPToHTTPS && httpsPort == 0 {
		return &InvalidServiceError{What: "invalid service for a simcloud load balancer", Problems: []string{AnnotationRedirectHTTPToHTTPS + " needs an https listener to redirect to"}}
	}
	for i := range services {
		switch {
		case services[i].Protocol == "https" && cfg.certificateID != "":
			services[i].CertificateID = &cfg.certificateID
		case services[i].Protocol == "http" && cfg.redirectHTTPToHTTPS:
			services[i].RedirectHTTPSPort = &httpsPort
		}
	}
	return nil
}

func listenerFor(svc *v1.Service, port v1.ServicePort, cfg lbConfig) client.LoadBalancerService {
	o, overridden := cfg.portOverrides[port.Port]
	hc := client.HealthCheck{
		Protocol: cfg.healthCheckProtocol, Path: cfg.healthCheckPath,
		IntervalSeconds: float64(cfg.healthCheckInterval), TimeoutSeconds: float64(cfg.healthCheckTimeout), Retries: cfg.healthCheckRetries,
	}
	hcPort := int(port.NodePort)
	if cfg.healthCheckPort != 0 {
		hcPort = cfg.healthCheckPort
	}
	if needsHealthCheckNodePort(svc) && !explicitHealthCheck(svc) && !overridden {
		hc.Protocol, hc.Path, hcPort = "http", "/healthz", int(svc.Spec.HealthCheckNodePort)
	}
	listener := client.LoadBalancerService{Protocol: cfg.protocol, ListenPort: int(port.Port), DestinationPort: int(port.NodePort), ProxyProtocol: cfg.proxyProtocol}
	if o.Protocol != nil {
		listener.Protocol = *o.Protocol
	}
	if o.ProxyProtocol != nil {
		listener.ProxyProtocol = *o.ProxyProtocol
	}
	if o.HealthCheckProtocol != nil {
		hc.Protocol = *o.HealthCheckProtocol
	}
	if o.HealthCheckPort != nil {
		hcPort = *o.HealthCheckPort
	}
	if o.HealthCheckPath != nil {
		hc.Path = *o.HealthCheckPath
	}
	if port.Protocol == v1.ProtocolUDP {
		// A UDP port is a udp listener whatever the protocol annotations say, with no PROXY header; a TCP connect
		// to its node port tells nothing, so it is checked only through the health-check node port.
		listener.Protocol, listener.ProxyProtocol = "udp", "none"
		if !(needsHealthCheckNodePort(svc) && !explicitHealthCheck(svc) && !overridden) {
			hc.Protocol, hc.Path, hcPort = "none", "/", int(port.NodePort)
		}
	}
	hc.Port = &hcPort
	listener.HealthCheck = hc
	return listener
}

// VariantIgnoreIPMode writes ipMode VIP whatever the listeners send, so kube-proxy captures the address of a
// PROXY-protocol load balancer and in-cluster clients reach a backend that expects a header they never send
// (hcloud-cloud-controller-manager #727, DigitalOcean's #811): in-cluster fails.
const VariantIgnoreIPMode = "ignore-ipmode"

// ingressStatus is the Service's status: the VIP (ipMode Proxy when a listener sends the PROXY protocol),
// or only a hostname derived from the VIP and location when asked (simcloud has no DNS of its own).
func ingressStatus(lb *client.LoadBalancer, cfg lbConfig) *v1.LoadBalancerStatus {
	if cfg.hostnameOnlyIngress {
		host := strings.ReplaceAll(lb.PublicIPv4, ".", "-") + "." + lb.Location + ".lb.simcloud.dev"
		return &v1.LoadBalancerStatus{Ingress: []v1.LoadBalancerIngress{{Hostname: host}}}
	}
	mode := v1.LoadBalancerIPModeVIP
	for _, s := range lb.Services {
		if s.ProxyProtocol != "none" && !faultyVariant(VariantIgnoreIPMode) {
			mode = v1.LoadBalancerIPModeProxy
		}
	}
	return &v1.LoadBalancerStatus{Ingress: []v1.LoadBalancerIngress{{IP: lb.PublicIPv4, IPMode: &mode}}}
}

// loadBalancerUpdate is the PATCH turning lb into spec plus the owner labels (nil when nothing differs).
func loadBalancerUpdate(lb *client.LoadBalancer, spec lbSpec, labels map[string]string) *client.UpdateLoadBalancerRequest {
	var body client.UpdateLoadBalancerRequest
	changed := false
	if lb.Algorithm != spec.algorithm {
		body.Algorithm, changed = spec.algorithm, true
	}
	if lb.SessionAffinity != spec.sessionAffinity {
		body.SessionAffinity, changed = spec.sessionAffinity, true
	}
	if !sameJSON(byListenPort(lb.Services), byListenPort(spec.services)) {
		services := spec.services
		body.Services, changed = &services, true
	}
	if !sameJSON(sortedTargets(lb.Targets), sortedTargets(spec.targets)) {
		targets := spec.targets
		body.Targets, changed = &targets, true
	}
	if !sameJSON(sortedStrings(lb.SourceRanges), sortedStrings(spec.sourceRanges)) {
		ranges := spec.sourceRanges
		body.SourceRanges, changed = &ranges, true
	}
	if merged, differ := mergedLabels(lb.Labels, labels); differ {
		body.Labels, changed = merged, true
	}
	if !changed {
		return nil
	}
	return &body
}

func byListenPort(services []client.LoadBalancerService) []client.LoadBalancerService {
	out := append([]client.LoadBalancerService(nil), services...)
	sort.Slice(out, func(a, b int) bool { return out[a].ListenPort < out[b].ListenPort })
	return out
}

func sortedStrings(values []string) []string {
	out := append([]string{}, values...)
	sort.Strings(out)
	return out
}

// mergedLabels is have with want laid over it, and whether that differs from have.
func mergedLabels(have, want map[string]string) (map[string]string, bool) {
	merged := map[string]string{}
	for k, v := range have {
		merged[k] = v
	}
	differ := false
	for k, v := range want {
		differ = differ || have[k] != v
		merged[k] = v
	}
	return merged, differ
}

func sortedTargets(targets []client.LoadBalancerTarget) []client.LoadBalancerTarget {
	out := append([]client.LoadBalancerTarget(nil), targets...)
	sort.Slice(out, func(a, b int) bool { return targetKey(out[a]) < targetKey(out[b]) })
	return out
}

func targetKey(t client.LoadBalancerTarget) string {
	return t.Kind + "/" + t.ServerID + t.ServerGroupID + t.LabelSelector + t.IP
}

// sameFirewallRules compares rules ignoring the order of rules and of their source CIDRs.
func sameFirewallRules(have, want []client.FirewallRule) bool {
	normal := func(rules []client.FirewallRule) []client.FirewallRule {
		out := make([]client.FirewallRule, len(rules))
		for i, r := range rules {
			r.SourceCIDRs = append([]string(nil), r.SourceCIDRs...)
			sort.Strings(r.SourceCIDRs)
			if r.DestinationCIDRs == nil {
				r.DestinationCIDRs = []string{}
			}
			out[i] = r
		}
		sort.Slice(out, func(a, b int) bool { return deref(out[a].Ports) < deref(out[b].Ports) })
		return out
	}
	return sameJSON(normal(have), normal(want))
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func sameJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

// blockVIP is the VIP a load balancer takes from an IP block: its third address.
func blockVIP(cidr string) string {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return ""
	}
	addr := p.Masked().Addr()
	for range vipIndex {
		addr = addr.Next()
	}
	return addr.String()
}
