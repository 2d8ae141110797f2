package hcloud

import (
	"context"
	"fmt"
	"net"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	v1 "k8s.io/api/core/v1"
)

// lbChange is one change to a load balancer's own settings: an action to take and what it does.
type lbChange struct {
	what string
	do   func(ctx context.Context, c *hcloud.Client, lb *hcloud.LoadBalancer) (*hcloud.Action, error)
}

// lbChanges compares a load balancer's settings with the wanted ones (pure): name and owner label, type,
// algorithm, public interface, network attachment and the reverse DNS of its public addresses. Location and
// network zone cannot change in place.
func lbChanges(lb *hcloud.LoadBalancer, svc *v1.Service, o lbOptions, network *hcloud.Network) []lbChange {
	var out []lbChange
	name := loadBalancerName(svc, o)
	if lb.Name != name || lb.Labels[labelServiceUID] != string(svc.UID) {
		labels := map[string]string{}
		for k, v := range lb.Labels {
			labels[k] = v
		}
		labels[labelServiceUID] = string(svc.UID)
		out = append(out, lbChange{what: "name and labels", do: func(ctx context.Context, c *hcloud.Client, lb *hcloud.LoadBalancer) (*hcloud.Action, error) {
			_, _, err := c.LoadBalancer.Update(ctx, lb, hcloud.LoadBalancerUpdateOpts{Name: name, Labels: labels})
			return nil, err
		}})
	}
	if lb.LoadBalancerType == nil || lb.LoadBalancerType.Name != o.lbType {
		out = append(out, lbChange{what: "type " + o.lbType, do: func(ctx context.Context, c *hcloud.Client, lb *hcloud.LoadBalancer) (*hcloud.Action, error) {
			a, _, err := c.LoadBalancer.ChangeType(ctx, lb, hcloud.LoadBalancerChangeTypeOpts{LoadBalancerType: &hcloud.LoadBalancerType{Name: o.lbType}})
			return a, err
		}})
	}
	if lb.Algorithm.Type != o.algorithm {
		out = append(out, lbChange{what: "algorithm " + string(o.algorithm), do: func(ctx context.Context, c *hcloud.Client, lb *hcloud.LoadBalancer) (*hcloud.Action, error) {
			a, _, err := c.LoadBalancer.ChangeAlgorithm(ctx, lb, hcloud.LoadBalancerChangeAlgorithmOpts{Type: o.algorithm})
			return a, err
		}})
	}
	if change, ok := publicInterfaceChange(lb, o); ok {
		out = append(out, change)
	}
	if network != nil && !attachedTo(lb, network.ID) {
		out = append(out, lbChange{what: "attach to network " + network.Name, do: func(ctx context.Context, c *hcloud.Client, lb *hcloud.LoadBalancer) (*hcloud.Action, error) {
			a, _, err := c.LoadBalancer.AttachToNetwork(ctx, lb, hcloud.LoadBalancerAttachToNetworkOpts{Network: network})
			return a, err
		}})
	}
	out = appendDNSPtrChange(out, "IPv4", lb.PublicNet.IPv4.IP, lb.PublicNet.IPv4.DNSPtr, o.ipv4RDNS)
	return appendDNSPtrChange(out, "IPv6", lb.PublicNet.IPv6.IP, lb.PublicNet.IPv6.DNSPtr, o.ipv6RDNS)
}

// appendDNSPtrChange sets the reverse DNS of a public address (change_dns_ptr with that address) when the
// ipv4-rdns or ipv6-rdns annotation is set and differs, as Hetzner's CCM does; unset, it is left alone.
func appendDNSPtrChange(out []lbChange, family string, ip net.IP, current string, want *string) []lbChange {
	if want == nil || *want == current || ip == nil {
		return out
	}
	name := *want
	return append(out, lbChange{what: family + " reverse DNS " + name, do: func(ctx context.Context, c *hcloud.Client, lb *hcloud.LoadBalancer) (*hcloud.Action, error) {
		a, _, err := c.LoadBalancer.ChangeDNSPtr(ctx, lb, ip.String(), &name)
		return a, err
	}})
}

// publicInterfaceChange turns the public interface on or off when disable-public-network says so; unset,
// the interface is left as it is.
func publicInterfaceChange(lb *hcloud.LoadBalancer, o lbOptions) (lbChange, bool) {
	if o.disablePublicNetwork == nil || *o.disablePublicNetwork != lb.PublicNet.Enabled {
		return lbChange{}, false
	}
	if *o.disablePublicNetwork {
		return lbChange{what: "disable the public interface", do: func(ctx context.Context, c *hcloud.Client, lb *hcloud.LoadBalancer) (*hcloud.Action, error) {
			a, _, err := c.LoadBalancer.DisablePublicInterface(ctx, lb)
			return a, err
		}}, true
	}
	return lbChange{what: "enable the public interface", do: func(ctx context.Context, c *hcloud.Client, lb *hcloud.LoadBalancer) (*hcloud.Action, error) {
		a, _, err := c.LoadBalancer.EnablePublicInterface(ctx, lb)
		return a, err
	}}, true
}

func attachedTo(lb *hcloud.LoadBalancer, networkID int64) bool {
	for _, n := range lb.PrivateNet {
		if n.Network != nil && n.Network.ID == networkID {
			return true
		}
	}
	return false
}

// reconcile applies lbChanges one after another (each waits for its action) and returns the load
// balancer as it is afterwards.
func (l *loadBalancers) reconcile(ctx context.Context, lb *hcloud.LoadBalancer, svc *v1.Service, o lbOptions) (*hcloud.LoadBalancer, error) {
	changes := lbChanges(lb, svc, o, l.network)
	if len(changes) == 0 {
		return lb, nil
	}
	for _, change := range changes {
		if err := l.apply(ctx, lb, change); err != nil {
			return nil, err
		}
	}
	fresh, _, err := l.client.LoadBalancer.GetByID(ctx, lb.ID)
	if err != nil || fresh == nil {
		return nil, fmt.Errorf("reading load balancer %s again: %w", lb.Name, orNotFound(err))
	}
	return fresh, nil
}

func (l *loadBalancers) apply(ctx context.Context, lb *hcloud.LoadBalancer, change lbChange) error {
	action, err := change.do(ctx, l.client, lb)
	if err == nil && action != nil {
		err = l.client.Action.WaitFor(ctx, action)
	}
	if err != nil {
		return fmt.Errorf("load balancer %s: %s: %w", lb.Name, change.what, err)
	}
	return nil
}
