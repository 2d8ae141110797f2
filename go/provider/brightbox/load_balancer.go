package brightbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"

	brightbox "github.com/brightbox/gobrightbox/v2"
	"github.com/brightbox/gobrightbox/v2/enums/cloudipstatus"
	"github.com/brightbox/gobrightbox/v2/enums/listenerprotocol"
	"github.com/brightbox/gobrightbox/v2/enums/loadbalancerstatus"
	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2"

	"ccm-sandbox/go/internal/providerkit"
)

var _ cloudprovider.LoadBalancer = (*loadBalancers)(nil)

// The firewall rule Brightbox's CCM opens on a Service's server group: TCP to the NodePorts from Brightbox's
// private range, where its load balancers reach servers from.
const (
	ruleProtocol = "tcp"
	ruleSource   = "10.0.0.0/8"
)

// loadBalancers is Brightbox's strategy: per Service a cloud IP, a load balancer it is mapped to, and a server
// group of the nodes' servers with a firewall policy, all under the name GetLoadBalancerName gives.
type loadBalancers struct{ c *brightbox.Client }

// GetLoadBalancerName is <service>.<namespace>.<cluster>, as Brightbox's CCM names a Service's resources.
func (l *loadBalancers) GetLoadBalancerName(_ context.Context, cluster string, svc *v1.Service) string {
	name, namespace := svc.Name, svc.Namespace
	if name == "" {
		name = cloudprovider.DefaultLoadBalancerName(svc)
	}
	if namespace == "" {
		namespace = v1.NamespaceDefault
	}
	return name + "." + namespace + "." + cluster
}

// alive is a load balancer that is neither deleted nor failed: one that still counts.
func alive(lb *brightbox.LoadBalancer) bool {
	return lb.Status == loadbalancerstatus.Active || lb.Status == loadbalancerstatus.Creating
}

// findLB is the live load balancer called name (nil: none).
func (l *loadBalancers) findLB(ctx context.Context, name string) (*brightbox.LoadBalancer, error) {
	list, err := l.c.LoadBalancers(ctx)
	for i := range list {
		if list[i].Name == name && alive(&list[i]) {
			return &list[i], nil
		}
	}
	return nil, err
}

// status is the ingress of each cloud IP mapped to lb: its address (see the package comment).
func status(lb *brightbox.LoadBalancer) *v1.LoadBalancerStatus {
	out := &v1.LoadBalancerStatus{}
	for _, cip := range lb.CloudIPs {
		out.Ingress = append(out.Ingress, v1.LoadBalancerIngress{IP: cip.PublicIPv4})
	}
	return out
}

// GetLoadBalancer reports the Service's load balancer, if it has one.
func (l *loadBalancers) GetLoadBalancer(ctx context.Context, cluster string, svc *v1.Service) (_ *v1.LoadBalancerStatus, _ bool, err error) {
	defer providerkit.Wrap(&err, ProviderName, "GetLoadBalancer")
	lb, err := l.findLB(ctx, l.GetLoadBalancerName(ctx, cluster, svc))
	if err != nil || lb == nil {
		return nil, false, err
	}
	return status(lb), true, nil
}

// EnsureLoadBalancer makes or updates, in Brightbox's CCM's order, the Service's cloud IP, its server group and
// firewall, its load balancer and the mapping; then it retires other cloud IPs of the name. Until the cloud IP
// shows on the load balancer it returns an error, so the service controller tries again.
func (l *loadBalancers) EnsureLoadBalancer(ctx context.Context, cluster string, svc *v1.Service, nodes []*v1.Node) (_ *v1.LoadBalancerStatus, err error) {
	defer providerkit.Wrap(&err, ProviderName, "EnsureLoadBalancer")
	spec, err := parseService(svc)
	if err != nil {
		return nil, err
	}
	name := l.GetLoadBalancerName(ctx, cluster, svc)
	cip, err := l.ensureCloudIP(ctx, name, spec)
	if err != nil {
		return nil, err
	}
	servers, err := l.serverIDs(ctx, nodes)
	if err != nil {
		return nil, err
	}
	if err := l.ensureFirewall(ctx, name, servers, spec.ports); err != nil {
		return nil, err
	}
	lb, err := l.ensureLB(ctx, name, spec, servers)
	if err != nil {
		return nil, err
	}
	switch {
	case cip.Status != cloudipstatus.Mapped:
		if _, err := l.c.MapCloudIP(ctx, cip.ID, brightbox.CloudIPAttachment{Destination: lb.ID}); err != nil {
			return nil, err
		}
	case cip.LoadBalancer == nil || cip.LoadBalancer.ID != lb.ID:
		klog.Warningf("brightbox: cloud IP %s (%s) is mapped elsewhere; unmap it to use it for %s", cip.ID, cip.PublicIP, name)
	}
	for _, other := range lb.CloudIPs {
		if other.ID != cip.ID {
			if _, err := l.c.UnMapCloudIP(ctx, other.ID); err != nil {
				return nil, err
			}
		}
	}
	if err := l.destroyCloudIPs(ctx, name, cip.ID); err != nil {
		return nil, err
	}
	if lb, err = l.c.LoadBalancer(ctx, lb.ID); err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(lb.CloudIPs, func(c brightbox.CloudIP) bool { return c.ID == cip.ID }) {
		return nil, fmt.Errorf("cloud IP %s is not mapped to load balancer %s yet", cip.ID, lb.ID)
	}
	return status(lb), nil
}

// UpdateLoadBalancer does what EnsureLoadBalancer does, as Brightbox's CCM delegates it.
func (l *loadBalancers) UpdateLoadBalancer(ctx context.Context, cluster string, svc *v1.Service, nodes []*v1.Node) (err error) {
	defer providerkit.Wrap(&err, ProviderName, "UpdateLoadBalancer")
	_, err = l.EnsureLoadBalancer(ctx, cluster, svc, nodes)
	return err
}

// EnsureLoadBalancerDeleted removes the Service's server group, firewall policy, load balancer and cloud IPs;
// it returns an error while the load balancer still holds a cloud IP.
func (l *loadBalancers) EnsureLoadBalancerDeleted(ctx context.Context, cluster string, svc *v1.Service) (err error) {
	defer providerkit.Wrap(&err, ProviderName, "EnsureLoadBalancerDeleted")
	name := l.GetLoadBalancerName(ctx, cluster, svc)
	group, err := l.findGroup(ctx, name)
	if err == nil && group != nil {
		if group, err = l.syncGroup(ctx, group, nil); err == nil {
			_, err = l.c.DestroyServerGroup(ctx, group.ID)
		}
	}
	if err != nil {
		return err
	}
	policy, err := l.findPolicy(ctx, name)
	if err == nil && policy != nil {
		_, err = l.c.DestroyFirewallPolicy(ctx, policy.ID)
	}
	if err != nil {
		return err
	}
	lb, err := l.findLB(ctx, name)
	if err == nil && lb != nil {
		_, err = l.c.DestroyLoadBalancer(ctx, lb.ID)
	}
	if err != nil {
		return err
	}
	if err := l.destroyCloudIPs(ctx, name, ""); err != nil {
		return err
	}
	if lb == nil {
		return nil
	}
	lb, err = l.c.LoadBalancer(ctx, lb.ID)
	switch {
	case isNotFound(err):
		return nil
	case err != nil:
		return err
	case len(lb.CloudIPs) > 0:
		return fmt.Errorf("load balancer %s still has cloud IPs mapped", lb.ID)
	}
	return nil
}

// ensureCloudIP is the Service's cloud IP: the annotation's, the one with spec.loadBalancerIP's address, or
// the one named as (or mapped to the load balancer named as) the Service's resources, allocated if none is.
func (l *loadBalancers) ensureCloudIP(ctx context.Context, name string, spec lbSpec) (*brightbox.CloudIP, error) {
	if spec.cloudIP != "" {
		return l.c.CloudIP(ctx, spec.cloudIP)
	}
	want := net.ParseIP(spec.address)
	if spec.address != "" && want == nil {
		return nil, fmt.Errorf("spec.loadBalancerIP %q is not an IP address", spec.address)
	}
	list, err := l.c.CloudIPs(ctx)
	if err != nil {
		return nil, err
	}
	for i, cip := range list {
		mine := cip.Name == name || (cip.LoadBalancer != nil && cip.LoadBalancer.Name == name)
		if want != nil {
			mine = want.Equal(net.ParseIP(cip.PublicIPv4)) || want.Equal(net.ParseIP(cip.PublicIPv6))
		}
		if mine {
			return &list[i], nil
		}
	}
	if want != nil {
		return nil, fmt.Errorf("no cloud IP has the address %s (spec.loadBalancerIP)", spec.address)
	}
	return l.c.CreateCloudIP(ctx, brightbox.CloudIPOptions{Name: &name})
}

// destroyCloudIPs destroys the cloud IPs called name but keep, unmapping each first.
func (l *loadBalancers) destroyCloudIPs(ctx context.Context, name, keep string) error {
	list, err := l.c.CloudIPs(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, cip := range list {
		if cip.Name != name || cip.ID == keep {
			continue
		}
		if cip.Status == cloudipstatus.Mapped {
			if _, err := l.c.UnMapCloudIP(ctx, cip.ID); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		if _, err := l.c.DestroyCloudIP(ctx, cip.ID); err != nil && !isNotFound(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// serverIDs are the nodes' servers: by providerID, or by name for nodes without one.
func (l *loadBalancers) serverIDs(ctx context.Context, nodes []*v1.Node) ([]string, error) {
	return providerkit.MachineIDs(nodes, ProviderName+"://", ParseProviderID, func() (map[string]string, error) {
		list, err := l.c.Servers(ctx)
		ids := make(map[string]string, len(list))
		for _, s := range list {
			ids[s.Name], ids[s.ID] = s.ID, s.ID
		}
		return ids, err
	})
}

// ensureLB creates the load balancer, or updates it when it differs from what the Service asks.
func (l *loadBalancers) ensureLB(ctx context.Context, name string, spec lbSpec, servers []string) (*brightbox.LoadBalancer, error) {
	current, err := l.findLB(ctx, name)
	if err != nil {
		return nil, err
	}
	want := options(name, spec, servers)
	if current == nil {
		return l.c.CreateLoadBalancer(ctx, want)
	}
	if !needsUpdate(current, want) {
		return current, nil
	}
	want.ID = current.ID
	return l.c.UpdateLoadBalancer(ctx, want)
}

// options are the load balancer's settings for the Service; HTTPS listeners get the domains and redirect
// HTTP to HTTPS.
func options(name string, spec lbSpec, servers []string) brightbox.LoadBalancerOptions {
	nodes := make([]brightbox.LoadBalancerNode, len(servers))
	for i, id := range servers {
		nodes[i].Node = id
	}
	check := spec.check
	o := brightbox.LoadBalancerOptions{Name: &name, Nodes: nodes, Policy: spec.policy, Listeners: spec.listeners, Healthcheck: &check, HTTPSRedirect: &spec.https}
	if spec.https {
		domains := spec.domains
		o.Domains = &domains
	}
	return o
}

// needsUpdate says whether lb differs from want in what want sets (a zero number or enum is the API's default,
// which any value satisfies).
func needsUpdate(lb *brightbox.LoadBalancer, want brightbox.LoadBalancerOptions) bool {
	same := func(w, got uint) bool { return w == 0 || w == got }
	h, g := want.Healthcheck, lb.Healthcheck
	check := h.Type == g.Type && h.Port == g.Port && h.Request == g.Request && same(h.Interval, g.Interval) && same(h.Timeout, g.Timeout) &&
		same(h.ThresholdUp, g.ThresholdUp) && same(h.ThresholdDown, g.ThresholdDown)
	listeners := slices.EqualFunc(want.Listeners, lb.Listeners, func(w, got brightbox.LoadBalancerListener) bool {
		return w.Protocol == got.Protocol && w.In == got.In && w.Out == got.Out && same(w.Timeout, got.Timeout) && w.ProxyProtocol == got.ProxyProtocol
	})
	var nodes []string
	for _, n := range lb.Nodes {
		nodes = append(nodes, n.ID)
	}
	slices.Sort(nodes)
	wantNodes := make([]string, len(want.Nodes))
	for i, n := range want.Nodes {
		wantNodes[i] = n.Node
	}
	slices.Sort(wantNodes)
	https := slices.ContainsFunc(want.Listeners, func(l brightbox.LoadBalancerListener) bool { return l.Protocol == listenerprotocol.Https })
	return *want.Name != lb.Name || !check || !listeners || !slices.Equal(nodes, wantNodes) || (want.Policy != 0 && want.Policy != lb.Policy) ||
		https != lb.HTTPSRedirect
}

// ensureFirewall keeps the server group called name holding exactly servers, with a firewall policy of the same
// name whose first rule opens ports.
func (l *loadBalancers) ensureFirewall(ctx context.Context, name string, servers []string, ports string) error {
	group, err := l.findGroup(ctx, name)
	if err == nil && group == nil {
		group, err = l.c.CreateServerGroup(ctx, brightbox.ServerGroupOptions{Name: &name})
	}
	if err == nil {
		group, err = l.syncGroup(ctx, group, servers)
	}
	if err != nil {
		return err
	}
	policy, err := l.findPolicy(ctx, name)
	if err == nil && policy == nil {
		policy, err = l.c.CreateFirewallPolicy(ctx, brightbox.FirewallPolicyOptions{Name: &name, FirewallPolicyAttachment: &brightbox.FirewallPolicyAttachment{ServerGroup: group.ID}})
	}
	if err != nil {
		return err
	}
	rule := brightbox.FirewallRuleOptions{FirewallPolicy: policy.ID, Protocol: ptr(ruleProtocol), Source: ptr(ruleSource), DestinationPort: &ports, Description: &name}
	if len(policy.Rules) == 0 {
		_, err = l.c.CreateFirewallRule(ctx, rule)
		return err
	}
	if r := policy.Rules[0]; r.Protocol != ruleProtocol || r.Source != ruleSource || r.DestinationPort != ports || r.Description != name {
		rule.ID = r.ID
		_, err = l.c.UpdateFirewallRule(ctx, rule)
	}
	return err
}

func (l *loadBalancers) findGroup(ctx context.Context, name string) (*brightbox.ServerGroup, error) {
	list, err := l.c.ServerGroups(ctx)
	return byName(list, err, func(g brightbox.ServerGroup) string { return g.Name }, name)
}

func (l *loadBalancers) findPolicy(ctx context.Context, name string) (*brightbox.FirewallPolicy, error) {
	list, err := l.c.FirewallPolicies(ctx)
	return byName(list, err, func(p brightbox.FirewallPolicy) string { return p.Name }, name)
}

// byName is the element of list called name (nil: none, or the list's error).
func byName[T any](list []T, err error, nameOf func(T) string, name string) (*T, error) {
	if err != nil {
		return nil, err
	}
	for i := range list {
		if nameOf(list[i]) == name {
			return &list[i], nil
		}
	}
	return nil, nil
}

// syncGroup adds and removes servers so that the group holds exactly servers.
func (l *loadBalancers) syncGroup(ctx context.Context, group *brightbox.ServerGroup, servers []string) (*brightbox.ServerGroup, error) {
	var have []string
	for _, s := range group.Servers {
		have = append(have, s.ID)
	}
	members := func(ids []string, keep func(string) bool) brightbox.ServerGroupMemberList {
		var out brightbox.ServerGroupMemberList
		for _, id := range ids {
			if keep(id) {
				out.Servers = append(out.Servers, brightbox.ServerGroupMember{Server: id})
			}
		}
		return out
	}
	var err error
	if add := members(servers, func(id string) bool { return !slices.Contains(have, id) }); len(add.Servers) > 0 {
		group, err = l.c.AddServersToServerGroup(ctx, group.ID, add)
	}
	if remove := members(have, func(id string) bool { return !slices.Contains(servers, id) }); err == nil && len(remove.Servers) > 0 {
		group, err = l.c.RemoveServersFromServerGroup(ctx, group.ID, remove)
	}
	return group, err
}

func ptr[T any](v T) *T { return &v }
