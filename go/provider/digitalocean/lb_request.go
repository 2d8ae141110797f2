package digitalocean

import (
	"fmt"
	"net/netip"

	"github.com/digitalocean/godo"
	v1 "k8s.io/api/core/v1"
)

// request is the whole desired load balancer, as DigitalOcean's CCM builds it: a REGIONAL_NETWORK one (the
// default) forwards each Service port to the same port on every node's droplet, where kube-proxy answers for
// the load balancer's address; a REGIONAL one forwards it to the port's NodePort. Its type is the Service's
// type annotation, which the provider keeps equal to the load balancer's own type once there is one.
func (l *loadBalancers) request(svc *v1.Service, nodes []*v1.Node) (*godo.LoadBalancerRequest, error) {
	o, err := parseOptions(svc)
	if err != nil {
		return nil, err
	}
	rules, err := forwardingRules(svc, o)
	if err != nil {
		return nil, err
	}
	stack, err := networkStack(o, nodes)
	if err != nil {
		return nil, err
	}
	ids := make([]int, 0, len(nodes))
	for _, n := range nodes {
		if id, err := ParseProviderID(n.Spec.ProviderID); err == nil {
			ids = append(ids, id)
		}
	}
	req := &godo.LoadBalancerRequest{
		Name: lbName(svc), Region: l.region, Type: o.lbType, NetworkStack: stack, SizeUnit: uint32(o.sizeUnit), Algorithm: o.algorithm,
		ForwardingRules: rules, DropletIDs: ids, EnableProxyProtocol: o.proxyProtocol,
		HealthCheck: &godo.HealthCheck{
			Protocol: o.health.protocol, Port: o.health.port, CheckIntervalSeconds: o.health.interval, ResponseTimeoutSeconds: o.health.timeout,
			UnhealthyThreshold: o.health.unhealthy, HealthyThreshold: o.health.ok, ProxyProtocol: o.health.proxyProtocol,
		},
		StickySessions:      &godo.StickySessions{Type: "none"},
		RedirectHttpToHttps: o.tls.redirect,
	}
	if o.health.protocol != "tcp" {
		req.HealthCheck.Path = o.health.path
	}
	if o.sticky != nil {
		req.StickySessions = &godo.StickySessions{Type: "cookies", CookieName: o.sticky.cookie, CookieTtlSeconds: o.sticky.ttl}
	}
	return req, nil
}

// forwardingRules: one rule per Service port, to the same port (REGIONAL_NETWORK, always tcp) or to its
// NodePort (REGIONAL, in the protocol annotation's protocol; a TLS port https with the certificate, to http).
func forwardingRules(svc *v1.Service, o lbOptions) ([]godo.ForwardingRule, error) {
	rules := make([]godo.ForwardingRule, 0, len(svc.Spec.Ports))
	for _, p := range svc.Spec.Ports {
		if p.Protocol != v1.ProtocolTCP && p.Protocol != "" {
			return nil, fmt.Errorf("port %d: protocol %s is not supported; DigitalOcean load balancers forward TCP", p.Port, p.Protocol)
		}
		rule := godo.ForwardingRule{EntryProtocol: o.protocol, EntryPort: int(p.Port), TargetProtocol: o.protocol, TargetPort: int(p.NodePort)}
		if o.tls.ports[p.Port] {
			// TLS ends at the load balancer, which forwards plain HTTP to the node port.
			rule.EntryProtocol, rule.TargetProtocol, rule.CertificateID = "https", "http", o.tls.certificateID
		}
		if o.lbType == TypeRegionalNetwork {
			rule = godo.ForwardingRule{EntryProtocol: "tcp", EntryPort: int(p.Port), TargetProtocol: "tcp", TargetPort: int(p.Port)}
		}
		rules = append(rules, rule)
	}
	return rules, nil
}

// networkStack is the annotation's, else DigitalOcean's CCM's default: DUALSTACK for REGIONAL (it terminates
// connections, so IPv6 clients reach IPv4 nodes), and for REGIONAL_NETWORK DUALSTACK only when every node has
// an IPv6 and an IPv4 ExternalIP, else IPV4. A REGIONAL_NETWORK load balancer asked to be DUALSTACK with a
// node lacking IPv6 is an error, as there.
func networkStack(o lbOptions, nodes []*v1.Node) (string, error) {
	dual, v4Only := 0, 0
	for _, n := range nodes {
		v4, v6 := externalFamilies(n)
		switch {
		case v4 && v6:
			dual++
		case v4:
			v4Only++
		}
	}
	switch {
	case o.networkStack == StackDualstack && o.lbType == TypeRegionalNetwork && v4Only > 0:
		return "", fmt.Errorf("%s %s: %d nodes have no IPv6 ExternalIP; a %s load balancer needs one on every node", AnnNetworkStack, StackDualstack, v4Only, TypeRegionalNetwork)
	case o.networkStack != "":
		return o.networkStack, nil
	case o.lbType == TypeRegional || (dual > 0 && v4Only == 0):
		return StackDualstack, nil
	}
	return StackIPv4, nil
}

// externalFamilies says whether a node has IPv4 and IPv6 ExternalIPs.
func externalFamilies(n *v1.Node) (v4, v6 bool) {
	for _, a := range n.Status.Addresses {
		if a.Type != v1.NodeExternalIP {
			continue
		}
		if ip, err := netip.ParseAddr(a.Address); err == nil {
			v4, v6 = v4 || ip.Is4(), v6 || ip.Is6()
		}
	}
	return v4, v6
}
