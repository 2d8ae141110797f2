package hcloud

import (
	"context"
	"fmt"
	"sort"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	v1 "k8s.io/api/core/v1"

	"ccm-sandbox/go/internal/providerkit"
)

// targetPlan is what reconcileTargets does: server targets to add and server ids to remove. A target whose
// use_private_ip differs is removed and added again (the API cannot change it in place).
type targetPlan struct {
	add    []int64
	remove []int64
}

// planTargets compares the load balancer's server targets with the wanted servers (pure). Label selector
// and IP targets are not this provider's and are left alone.
func planTargets(existing []hcloud.LoadBalancerTarget, wanted []int64, usePrivateIP bool) targetPlan {
	have := map[int64]bool{}
	for _, t := range existing {
		if t.Type == hcloud.LoadBalancerTargetTypeServer && t.Server != nil && t.Server.Server != nil {
			have[t.Server.Server.ID] = t.UsePrivateIP
		}
	}
	var plan targetPlan
	for _, id := range wanted {
		private, ok := have[id]
		delete(have, id)
		if ok && private == usePrivateIP {
			continue
		}
		if ok {
			plan.remove = append(plan.remove, id)
		}
		plan.add = append(plan.add, id)
	}
	for id := range have {
		plan.remove = append(plan.remove, id)
	}
	sort.Slice(plan.remove, func(i, j int) bool { return plan.remove[i] < plan.remove[j] })
	return plan
}

// serverIDs are the nodes' servers: from their providerIDs, else by node name from one server list. Nodes
// of another provider are skipped; a malformed hcloud providerID is an error.
func (l *loadBalancers) serverIDs(ctx context.Context, nodes []*v1.Node) ([]int64, error) {
	return providerkit.MachineIDs(nodes, providerIDPrefix, serverIDFromProviderID, func() (map[string]int64, error) {
		servers, err := l.client.Server.All(ctx)
		byName := make(map[string]int64, len(servers))
		for _, s := range servers {
			byName[s.Name] = s.ID
		}
		return byName, err
	})
}

// reconcileTargets makes the load balancer's server targets exactly the nodes' servers. Targets through
// the private network need the load balancer in that network.
func (l *loadBalancers) reconcileTargets(ctx context.Context, lb *hcloud.LoadBalancer, nodes []*v1.Node, usePrivateIP bool) error {
	if usePrivateIP && (l.network == nil || !attachedTo(lb, l.network.ID)) {
		return fmt.Errorf("load balancer %s: %s needs the load balancer in the network %s; set it", lb.Name, AnnotationUsePrivateIP, EnvNetwork)
	}
	ids, err := l.serverIDs(ctx, nodes)
	if err != nil {
		return err
	}
	plan := planTargets(lb.Targets, ids, usePrivateIP)
	for _, id := range plan.remove {
		a, _, err := l.client.LoadBalancer.RemoveServerTarget(ctx, lb, &hcloud.Server{ID: id})
		if hcloud.IsError(err, hcloud.ErrorCodeNotFound) {
			continue
		}
		if err := l.wait(ctx, a, err, lb, fmt.Sprintf("remove target server %d", id)); err != nil {
			return err
		}
	}
	for _, id := range plan.add {
		opts := hcloud.LoadBalancerAddServerTargetOpts{Server: &hcloud.Server{ID: id}, UsePrivateIP: hcloud.Ptr(usePrivateIP)}
		a, _, err := l.client.LoadBalancer.AddServerTarget(ctx, lb, opts)
		if err := l.wait(ctx, a, err, lb, fmt.Sprintf("add target server %d", id)); err != nil {
			return err
		}
	}
	return nil
}
