package simcloud

import (
	"context"
	"fmt"
	"sort"

	"ccm-sandbox/go/provider/simcloud/client"
)

var _ strategy = groupStrategy{}

// groupStrategy is strategy "lb" (Brightbox style): the load balancer targets one server group holding the
// Service's nodes, and one firewall policy applied to that group opens the node ports to the source ranges.
type groupStrategy struct{}

func (groupStrategy) adoptID(cfg lbConfig) string { return cfg.loadBalancerID }

func (groupStrategy) ensure(op lbCall, want wanted) (*client.LoadBalancer, error) {
	group, err := op.ensureServerGroup(want.serverIDs)
	if err != nil {
		return nil, err
	}
	if err := op.ensureFirewallPolicy(group, want.plan.rules); err != nil {
		return nil, err
	}
	spec := want.plan.spec([]client.LoadBalancerTarget{{Kind: client.TargetServerGroup, ServerGroupID: group.ID}}, false)
	existing, err := op.findLoadBalancer(want.cfg.loadBalancerID)
	if err != nil {
		return nil, err
	}
	if existing != nil {
		return op.reconcileLoadBalancer(existing, spec, want.plan.requestedIP)
	}
	ipBlockID := ""
	if want.plan.requestedIP != "" {
		if ipBlockID, err = op.blockForIP(want.plan.requestedIP); err != nil {
			return nil, err
		}
	}
	return op.createLoadBalancer(spec, ipBlockID, "")
}

func (groupStrategy) update(op lbCall, serverIDs []string) error {
	group, err := op.findServerGroup()
	if err != nil {
		return err
	}
	if group == nil {
		return fmt.Errorf("UpdateLoadBalancer: no server group for service %s yet", serviceKey(op.svc))
	}
	_, err = op.reconcileMembers(group, serverIDs)
	return err
}

func (groupStrategy) others(op lbCall) (bool, error) {
	group, err := op.findServerGroup()
	if err != nil || group != nil {
		return group != nil, err
	}
	policy, err := op.findFirewallPolicy()
	return policy != nil, err
}

func (groupStrategy) deleteOthers(op lbCall) error { return op.deleteGroupAndPolicy() }

// blockForIP is the unassigned IP block whose VIP is ip (spec.loadBalancerIP).
func (op lbCall) blockForIP(ip string) (string, error) {
	blocks, err := op.c.ListAllIPBlocks(op.ctx, nil)
	if err != nil {
		return "", err
	}
	for _, b := range blocks {
		if blockVIP(b.CIDR) == ip && b.AssignedTo == nil {
			return b.ID, nil
		}
	}
	return "", fmt.Errorf("spec.loadBalancerIP %s of %s: no unassigned IP block has it as its VIP (third address)", ip, serviceKey(op.svc))
}

// findOwned returns the oldest resource carrying the Service's owner labels, else the one with its name
// (made by a create whose answer was lost); nil when there is none.
func findOwned[T any](op lbCall, list func(context.Context, client.ListOpts) ([]T, client.Meta, error), nameOf func(*T) string) (*T, error) {
	owned, _, err := list(op.ctx, client.ListOpts{LabelSelector: ownerSelector(op.cluster, op.svc), Sort: "created:asc"})
	if err != nil {
		return nil, err
	}
	if len(owned) > 0 {
		return &owned[0], nil
	}
	return findNamed(op, list, nameOf, resourceName(op.cluster, op.svc))
}

// findNamed returns the resource called name; nil when there is none.
func findNamed[T any](op lbCall, list func(context.Context, client.ListOpts) ([]T, client.Meta, error), nameOf func(*T) string, name string) (*T, error) {
	named, _, err := list(op.ctx, client.ListOpts{Name: name})
	for i := range named {
		if nameOf(&named[i]) == name {
			return &named[i], nil
		}
	}
	return nil, err
}

func (op lbCall) findServerGroup() (*client.ServerGroup, error) {
	return findOwned(op, op.c.ListServerGroups, func(g *client.ServerGroup) string { return g.Name })
}

// ensureServerGroup creates the group with serverIDs (one request's worth, then additions) or fixes its members.
func (op lbCall) ensureServerGroup(serverIDs []string) (*client.ServerGroup, error) {
	existing, err := op.findServerGroup()
	if err != nil {
		return nil, err
	}
	if existing != nil {
		return op.reconcileMembers(existing, serverIDs)
	}
	chunks := chunk(serverIDs, client.MaxServersPerRequest)
	first := []string{}
	if len(chunks) > 0 {
		first = chunks[0]
	}
	group, err := op.c.CreateServerGroup(op.ctx, client.CreateServerGroupRequest{
		Name: resourceName(op.cluster, op.svc), Description: "load balancer targets of " + serviceKey(op.svc),
		Labels: ownerLabels(op.cluster, op.svc), Servers: first,
	})
	for i := 1; err == nil && i < len(chunks); i++ {
		group, err = op.c.AddServers(op.ctx, group.ID, chunks[i])
	}
	return group, err
}

// reconcileMembers sends only the difference: additions first, so a node swap never shrinks the targets.
func (op lbCall) reconcileMembers(group *client.ServerGroup, want []string) (*client.ServerGroup, error) {
	add, remove := diffIDs(group.Servers, want)
	var err error
	for _, ids := range chunk(add, client.MaxServersPerRequest) {
		if group, err = op.c.AddServers(op.ctx, group.ID, ids); err != nil {
			return nil, err
		}
	}
	for _, ids := range chunk(remove, client.MaxServersPerRequest) {
		if group, err = op.c.RemoveServers(op.ctx, group.ID, ids); err != nil {
			return nil, err
		}
	}
	return group, nil
}

// diffIDs returns the ids to add and to remove to turn have into want, sorted.
func diffIDs(have, want []string) (add, remove []string) {
	h, w := map[string]bool{}, map[string]bool{}
	for _, id := range have {
		h[id] = true
	}
	for _, id := range want {
		w[id] = true
		if !h[id] {
			add = append(add, id)
		}
	}
	for _, id := range have {
		if !w[id] {
			remove = append(remove, id)
		}
	}
	sort.Strings(add)
	sort.Strings(remove)
	return add, remove
}

func chunk(ids []string, size int) [][]string {
	var out [][]string
	for i := 0; i < len(ids); i += size {
		out = append(out, ids[i:min(i+size, len(ids))])
	}
	return out
}

func (op lbCall) findFirewallPolicy() (*client.FirewallPolicy, error) {
	return findOwned(op, op.c.ListFirewallPolicies, func(p *client.FirewallPolicy) string { return p.Name })
}

// ensureFirewallPolicy creates the policy applied to group, or fixes its rules and its group.
func (op lbCall) ensureFirewallPolicy(group *client.ServerGroup, rules []client.FirewallRule) error {
	policy, err := op.findFirewallPolicy()
	if err != nil {
		return err
	}
	if policy == nil {
		_, err := op.c.CreateFirewallPolicy(op.ctx, client.CreateFirewallPolicyRequest{
			Name: resourceName(op.cluster, op.svc), Description: "node ports of " + serviceKey(op.svc),
			Labels: ownerLabels(op.cluster, op.svc), Rules: rules, ServerGroupID: group.ID,
		})
		return err
	}
	if !sameFirewallRules(policy.Rules, rules) {
		if policy, err = op.c.SetFirewallRules(op.ctx, policy.ID, rules); err != nil {
			return err
		}
	}
	if policy.ServerGroupID == nil || *policy.ServerGroupID != group.ID {
		if _, err := op.c.ApplyFirewallPolicy(op.ctx, policy.ID, group.ID); err != nil {
			return fmt.Errorf("applying firewall policy %s to server group %s: %w", policy.ID, group.ID, err)
		}
	}
	return nil
}

// deleteGroupAndPolicy removes the policy (unapplied first) and the group; both tolerate not_found.
func (op lbCall) deleteGroupAndPolicy() error {
	policy, err := op.findFirewallPolicy()
	if err != nil {
		return err
	}
	if policy != nil {
		if policy.ServerGroupID != nil {
			if _, err := op.c.RemoveFirewallPolicy(op.ctx, policy.ID); err != nil && !client.IsNotFound(err) {
				return err
			}
		}
		if err := op.c.DeleteFirewallPolicy(op.ctx, policy.ID); err != nil && !client.IsNotFound(err) {
			return err
		}
	}
	group, err := op.findServerGroup()
	if err != nil || group == nil {
		return err
	}
	if err := op.c.DeleteServerGroup(op.ctx, group.ID); err != nil && !client.IsNotFound(err) {
		return err
	}
	return nil
}
