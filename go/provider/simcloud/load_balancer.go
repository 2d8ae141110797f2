package simcloud

import (
	"context"
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/names"

	"ccm-sandbox/go/provider/simcloud/client"
)

var _ cloudprovider.LoadBalancer = (*loadBalancers)(nil)

// loadBalancers implements strategy "lb": per Service one load balancer targeting one server group (the
// Service's nodes) and one firewall policy on that group (one rule per node port, sources = the Service's
// source ranges). Every step finds its resource by owner labels first, so each call is idempotent.
type loadBalancers struct {
	client *client.Client
}

// lbCall is what every step needs: the client, the cluster name and a context carrying the caller.
type lbCall struct {
	ctx     context.Context
	c       *client.Client
	cluster string
	svc     *v1.Service
}

func (l *loadBalancers) call(ctx context.Context, method, cluster string, svc *v1.Service) lbCall {
	ctx = client.WithCaller(ctx, client.Caller{Controller: names.ServiceLBController, Key: serviceKey(svc), Method: method})
	return lbCall{ctx: ctx, c: l.client, cluster: cluster, svc: svc}
}

// GetLoadBalancerName is "<cluster>-a<service UID without dashes>", the name of every resource made for it.
func (l *loadBalancers) GetLoadBalancerName(_ context.Context, clusterName string, svc *v1.Service) string {
	return resourceName(clusterName, svc)
}

// GetLoadBalancer reports the load balancer's status; it also exists while only its group or policy is left,
// so that deleting a half-made one cleans up.
func (l *loadBalancers) GetLoadBalancer(ctx context.Context, clusterName string, svc *v1.Service) (*v1.LoadBalancerStatus, bool, error) {
	op := l.call(ctx, "GetLoadBalancer", clusterName, svc)
	cfg, err := parseAnnotations(svc.Annotations)
	if err != nil {
		cfg = defaultLBConfig()
	}
	lb, err := op.findLoadBalancer(cfg.loadBalancerID)
	if err != nil || lb != nil {
		if lb == nil {
			return nil, false, err
		}
		return ingressStatus(lb, cfg), true, nil
	}
	group, err := op.findServerGroup()
	if err != nil || group != nil {
		return nil, group != nil, err
	}
	policy, err := op.findFirewallPolicy()
	return nil, policy != nil, err
}

// EnsureLoadBalancer creates or updates the Service's group, policy and load balancer, and returns its status.
func (l *loadBalancers) EnsureLoadBalancer(ctx context.Context, clusterName string, svc *v1.Service, nodes []*v1.Node) (*v1.LoadBalancerStatus, error) {
	cfg, err := parseAnnotations(svc.Annotations)
	if err != nil {
		return nil, err
	}
	plan, err := planLoadBalancer(svc, cfg)
	if err != nil {
		return nil, err
	}
	op := l.call(ctx, "EnsureLoadBalancer", clusterName, svc)
	serverIDs, err := op.serverIDs(nodes)
	if err != nil {
		return nil, err
	}
	group, err := op.ensureServerGroup(serverIDs)
	if err != nil {
		return nil, err
	}
	if err := op.ensureFirewallPolicy(group, plan.rules); err != nil {
		return nil, err
	}
	lb, err := op.ensureLoadBalancer(plan, cfg, group)
	if err != nil {
		return nil, err
	}
	return ingressStatus(lb, cfg), nil
}

// UpdateLoadBalancer makes the Service's server group hold exactly the given nodes' servers.
func (l *loadBalancers) UpdateLoadBalancer(ctx context.Context, clusterName string, svc *v1.Service, nodes []*v1.Node) error {
	op := l.call(ctx, "UpdateLoadBalancer", clusterName, svc)
	serverIDs, err := op.serverIDs(nodes)
	if err != nil {
		return err
	}
	group, err := op.findServerGroup()
	if err != nil {
		return err
	}
	if group == nil {
		return fmt.Errorf("UpdateLoadBalancer: no server group for service %s yet", serviceKey(svc))
	}
	_, err = op.reconcileMembers(group, serverIDs)
	return err
}

// EnsureLoadBalancerDeleted removes the load balancer, the policy and the group, unless the preserve
// annotation keeps them; resources already gone count as deleted.
func (l *loadBalancers) EnsureLoadBalancerDeleted(ctx context.Context, clusterName string, svc *v1.Service) error {
	if raw, ok := svc.Annotations[AnnotationPreserve]; ok {
		cfg := defaultLBConfig()
		if allowed, ok := annotations[preserveIndex()].parse(raw, &cfg); !ok {
			return &InvalidServiceError{What: "invalid service annotations", Problems: []string{fmt.Sprintf("annotation %s=%q %s", AnnotationPreserve, raw, allowed)}}
		}
		if cfg.preserve {
			return nil
		}
	}
	op := l.call(ctx, "EnsureLoadBalancerDeleted", clusterName, svc)
	cfg, err := parseAnnotations(svc.Annotations)
	if err != nil {
		cfg = defaultLBConfig()
	}
	lb, err := op.findLoadBalancer(cfg.loadBalancerID)
	if err != nil {
		return err
	}
	if lb != nil {
		if err := op.deleteLoadBalancer(lb); err != nil {
			return err
		}
	}
	return op.deleteGroupAndPolicy()
}

func preserveIndex() int {
	for i, a := range annotations {
		if a.key == AnnotationPreserve {
			return i
		}
	}
	panic("the preserve annotation is not registered")
}

// serverIDs are the nodes' servers: from providerIDs, else by node name from one server list.
func (op lbCall) serverIDs(nodes []*v1.Node) ([]string, error) {
	ids := map[string]bool{}
	var unresolved []string
	for _, node := range nodes {
		switch {
		case strings.HasPrefix(node.Spec.ProviderID, providerIDPrefix):
			id, err := serverIDFromProviderID(node.Spec.ProviderID)
			if err != nil {
				return nil, err
			}
			ids[id] = true
		case node.Spec.ProviderID == "":
			unresolved = append(unresolved, node.Name)
		}
	}
	if len(unresolved) > 0 {
		servers, err := op.c.ListAllServers(op.ctx, client.ListOpts{})
		if err != nil {
			return nil, err
		}
		byName := map[string]string{}
		for _, s := range servers {
			byName[s.Name] = s.ID
		}
		for _, name := range unresolved {
			if id, ok := byName[name]; ok {
				ids[id] = true
			}
		}
	}
	out := make([]string, 0, len(ids))
	for id := range ids {
		out = append(out, id)
	}
	sort.Strings(out)
	return out, nil
}

// findLoadBalancer: the adopted id when given (it must exist), else the one findOwned finds.
func (op lbCall) findLoadBalancer(adoptID string) (*client.LoadBalancer, error) {
	if adoptID != "" {
		lb, err := op.c.GetLoadBalancer(op.ctx, adoptID)
		if client.IsNotFound(err) {
			return nil, fmt.Errorf("%s: load balancer %s does not exist", AnnotationLoadBalancerID, adoptID)
		}
		return lb, err
	}
	return findOwned(op, op.c.ListLoadBalancers, func(lb *client.LoadBalancer) string { return lb.Name })
}

func (op lbCall) ensureLoadBalancer(plan lbPlan, cfg lbConfig, group *client.ServerGroup) (*client.LoadBalancer, error) {
	targets := []client.LoadBalancerTarget{{Kind: client.TargetServerGroup, ServerGroupID: group.ID}}
	existing, err := op.findLoadBalancer(cfg.loadBalancerID)
	if err != nil {
		return nil, err
	}
	if existing != nil {
		if plan.requestedIP != "" && existing.PublicIPv4 != plan.requestedIP {
			return nil, fmt.Errorf("load balancer %s of %s has VIP %s, not %s; a VIP cannot change in place: delete and recreate the Service",
				existing.ID, serviceKey(op.svc), existing.PublicIPv4, plan.requestedIP)
		}
		body := loadBalancerUpdate(existing, plan, targets, ownerLabels(op.cluster, op.svc))
		if body == nil {
			return existing, nil
		}
		return op.c.UpdateLoadBalancer(op.ctx, existing.ID, *body)
	}
	req := client.CreateLoadBalancerRequest{
		Name: resourceName(op.cluster, op.svc), Labels: ownerLabels(op.cluster, op.svc), Algorithm: plan.algorithm,
		SessionAffinity: plan.sessionAffinity, Services: plan.services, Targets: targets, SourceRanges: []string{},
	}
	if plan.requestedIP != "" {
		if req.IPBlockID, err = op.blockForIP(plan.requestedIP); err != nil {
			return nil, err
		}
	}
	lb, action, err := op.c.CreateLoadBalancer(op.ctx, req)
	if err != nil {
		return nil, err
	}
	return lb, op.c.WaitForAction(op.ctx, action)
}

// blockForIP is the unassigned IP block whose VIP is ip (spec.loadBalancerIP).
func (op lbCall) blockForIP(ip string) (string, error) {
	blocks, err := op.c.ListAllIPBlocks(op.ctx)
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

func (op lbCall) deleteLoadBalancer(lb *client.LoadBalancer) error {
	action, err := op.c.DeleteLoadBalancer(op.ctx, lb.ID)
	if client.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := op.c.WaitForAction(op.ctx, action); err != nil && !client.IsNotFound(err) {
		return err
	}
	return nil
}
