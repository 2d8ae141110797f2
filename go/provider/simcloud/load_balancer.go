package simcloud

import (
	"context"
	"fmt"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/names"

	"ccm-sandbox/go/internal/providerkit"
	"ccm-sandbox/go/provider/simcloud/client"
)

var _ cloudprovider.LoadBalancer = (*loadBalancers)(nil)

// loadBalancers is the LoadBalancer capability: per Service one simcloud load balancer, plus what the
// strategy puts around it (a server group and a firewall policy for "lb", an IP block for "ip-block").
// Every step finds its resource by owner labels or tags first, so each call is idempotent. Unlike the other
// capabilities its errors carry no "simcloud: Method:" prefix (providerkit.Wrap): they become the
// SyncLoadBalancerFailed events that test/differential compares, word for word, with our TypeScript CCM's.
type loadBalancers struct {
	client   *client.Client
	strategy strategy
	faults   *faultyLBs
}

// strategy is what differs between "lb" (load_balancer_group.go) and "ip-block" (load_balancer_ip_block.go).
type strategy interface {
	// ensure makes the strategy's resources and the load balancer itself.
	ensure(op lbCall, want wanted) (*client.LoadBalancer, error)
	// update makes the load balancer send traffic to exactly serverIDs.
	update(op lbCall, serverIDs []string) error
	// others reports whether any resource other than the load balancer is left.
	others(op lbCall) (bool, error)
	// deleteOthers removes them; the load balancer is already gone.
	deleteOthers(op lbCall) error
	// adoptID is the id of a load balancer adopted through the load-balancer-id annotation, if any.
	adoptID(cfg lbConfig) string
}

// wanted is everything ensure needs.
type wanted struct {
	plan      lbPlan
	cfg       lbConfig
	serverIDs []string
	nodes     []*v1.Node
}

func newLoadBalancers(c *client.Client, strategyName string) *loadBalancers {
	faults := newFaultyLBs(time.Now())
	if strategyName == strategyIPBlock {
		return &loadBalancers{client: c, strategy: &ipBlockStrategy{blocks: map[string]string{}}, faults: faults}
	}
	return &loadBalancers{client: c, strategy: groupStrategy{}, faults: faults}
}

// lbCall is what every step needs: the client, the cluster name and a context carrying the caller.
type lbCall struct {
	ctx     context.Context
	c       *client.Client
	cluster string
	svc     *v1.Service
	faults  *faultyLBs
}

func (l *loadBalancers) call(ctx context.Context, method, cluster string, svc *v1.Service) lbCall {
	ctx = client.WithCaller(ctx, client.Caller{Controller: names.ServiceLBController, Key: serviceKey(svc), Method: method})
	return lbCall{ctx: ctx, c: l.client, cluster: cluster, svc: svc, faults: l.faults}
}

// The faulty variants of the load balancer capability (faulty.go): each a bug CCM users have filed, played
// only when CCM_SANDBOX_FAULTY_VARIANTS names it, for the conformance capability that must catch it.
const (
	// variantRenameOnStart names load balancers after the process's start (as a CCM deriving the name from
	// something a restart or an upgrade changes), and renames the ones it finds: restart and upgrade fail.
	variantRenameOnStart = "rename-on-start"
	// variantForgetDeletes releases the finalizer of a Service deleted before this process started without
	// deleting its load balancer (a deletion made while the CCM was down is lost): down-delete fails.
	variantForgetDeletes = "forget-deletes-on-restart"
	// variantAdoptByName names a load balancer "<namespace>-<name>" and finds it by that name alone, with no
	// owner check: a second cluster's Service of the same name takes the first one's: neighbours fails.
	variantAdoptByName = "adopt-by-name"
)

// faultyLBs is what the variants need to know about this process: when it started.
type faultyLBs struct {
	started time.Time
	stamp   string
}

func newFaultyLBs(started time.Time) *faultyLBs {
	return &faultyLBs{started: started, stamp: strconv.FormatInt(started.UnixMilli()%1_000_000, 10)}
}

// forgets reports whether variantForgetDeletes drops the deletion of svc: it was deleted before this process
// started. Judged by the deletion's time, not by what the process happened to reconcile first, so the variant
// fails down-delete whatever order the controllers' first syncs take.
func (f *faultyLBs) forgets(svc *v1.Service) bool {
	deleted := svc.DeletionTimestamp
	return faultyVariant(variantForgetDeletes) && deleted != nil && deleted.Time.Before(f.started)
}

// lbName is the load balancer's name: resourceName, unless a variant names it otherwise.
func (op lbCall) lbName() string {
	switch {
	case faultyVariant(variantAdoptByName):
		return fit(op.svc.Namespace+"-"+op.svc.Name, 63)
	case faultyVariant(variantRenameOnStart):
		return fit(resourceName(op.cluster, op.svc), 55) + "-" + op.faults.stamp
	}
	return resourceName(op.cluster, op.svc)
}

// VariantKeepOldHealthCheckPort keeps the port each listener's health check had when the load balancer already
// had that listener: an externalTrafficPolicy change (and the healthCheckNodePort that comes and goes with
// Local) never reaches the check, the bug of hcloud-cloud-controller-manager #161: traffic-policy fails.
const VariantKeepOldHealthCheckPort = "keep-old-hc-port"

// keepOldHealthCheckPorts is spec with existing's health check ports where VariantKeepOldHealthCheckPort is on.
func keepOldHealthCheckPorts(existing *client.LoadBalancer, spec lbSpec) lbSpec {
	if !faultyVariant(VariantKeepOldHealthCheckPort) {
		return spec
	}
	old := map[int]*int{}
	for _, s := range existing.Services {
		old[s.ListenPort] = s.HealthCheck.Port
	}
	services := make([]client.LoadBalancerService, 0, len(spec.services))
	for _, s := range spec.services {
		if port, ok := old[s.ListenPort]; ok {
			s.HealthCheck.Port = port
		}
		services = append(services, s)
	}
	spec.services = services
	return spec
}

// lenientConfig is the annotations for read-only and delete paths: invalid values fall back to defaults.
func lenientConfig(svc *v1.Service) lbConfig {
	cfg, err := parseAnnotations(svc.Annotations)
	if err != nil {
		return defaultLBConfig()
	}
	return cfg
}

// GetLoadBalancerName is "<cluster>-a<service UID without dashes>", the name of every resource made for it.
func (l *loadBalancers) GetLoadBalancerName(_ context.Context, clusterName string, svc *v1.Service) string {
	return resourceName(clusterName, svc)
}

// GetLoadBalancer reports the load balancer's status; it also exists while only the strategy's other
// resources are left, so that deleting a half-made one cleans up.
func (l *loadBalancers) GetLoadBalancer(ctx context.Context, clusterName string, svc *v1.Service) (*v1.LoadBalancerStatus, bool, error) {
	op := l.call(ctx, "GetLoadBalancer", clusterName, svc)
	cfg := lenientConfig(svc)
	lb, err := op.findLoadBalancer(l.strategy.adoptID(cfg))
	if err != nil {
		return nil, false, err
	}
	if lb != nil {
		return ingressStatus(lb, cfg), true, nil
	}
	exists, err := l.strategy.others(op)
	return nil, exists, err
}

// EnsureLoadBalancer creates or updates the Service's resources and returns the load balancer's status.
// Invalid annotations or ports fail before any cloud call.
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
	lb, err := l.strategy.ensure(op, wanted{plan: plan, cfg: cfg, serverIDs: serverIDs, nodes: nodes})
	if err != nil {
		return nil, err
	}
	return ingressStatus(lb, cfg), nil
}

// UpdateLoadBalancer makes the load balancer send traffic to exactly the given nodes.
func (l *loadBalancers) UpdateLoadBalancer(ctx context.Context, clusterName string, svc *v1.Service, nodes []*v1.Node) error {
	op := l.call(ctx, "UpdateLoadBalancer", clusterName, svc)
	serverIDs, err := op.serverIDs(nodes)
	if err != nil {
		return err
	}
	return l.strategy.update(op, serverIDs)
}

// EnsureLoadBalancerDeleted removes the load balancer and the strategy's resources, unless the preserve
// annotation keeps them; resources already gone count as deleted.
func (l *loadBalancers) EnsureLoadBalancerDeleted(ctx context.Context, clusterName string, svc *v1.Service) error {
	// Only the preserve annotation, strictly: deleting must not guess what an invalid value meant.
	if raw, ok := svc.Annotations[AnnotationPreserve]; ok {
		cfg, err := parseAnnotations(map[string]string{AnnotationPreserve: raw})
		if err != nil {
			return err
		}
		if cfg.preserve {
			return nil
		}
	}
	if l.faults.forgets(svc) {
		return nil
	}
	op := l.call(ctx, "EnsureLoadBalancerDeleted", clusterName, svc)
	lb, err := op.findLoadBalancer(l.strategy.adoptID(lenientConfig(svc)))
	if err != nil {
		return err
	}
	if lb != nil {
		if err := op.deleteLoadBalancer(lb); err != nil {
			return err
		}
	}
	return l.strategy.deleteOthers(op)
}

// serverIDs are the nodes' servers: from providerIDs, else by node name from one server list.
func (op lbCall) serverIDs(nodes []*v1.Node) ([]string, error) {
	return providerkit.MachineIDs(nodes, providerIDPrefix, serverIDFromProviderID, func() (map[string]string, error) {
		servers, err := op.c.ListAllServers(op.ctx, client.ListOpts{})
		byName := make(map[string]string, len(servers))
		for _, s := range servers {
			byName[s.Name] = s.ID
		}
		return byName, err
	})
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
	if faultyVariant(variantAdoptByName) {
		return findNamed(op, op.c.ListLoadBalancers, func(lb *client.LoadBalancer) string { return lb.Name }, op.lbName())
	}
	return findOwned(op, op.c.ListLoadBalancers, func(lb *client.LoadBalancer) string { return lb.Name })
}

// reconcileLoadBalancer updates existing to spec; its VIP, when one is wanted, cannot change in place.
func (op lbCall) reconcileLoadBalancer(existing *client.LoadBalancer, spec lbSpec, vip string) (*client.LoadBalancer, error) {
	if vip != "" && existing.PublicIPv4 != vip {
		return nil, fmt.Errorf("load balancer %s of %s has VIP %s, not %s; a VIP cannot change in place: delete and recreate the Service",
			existing.ID, serviceKey(op.svc), existing.PublicIPv4, vip)
	}
	body := loadBalancerUpdate(existing, keepOldHealthCheckPorts(existing, spec), ownerLabels(op.cluster, op.svc))
	if name := op.lbName(); faultyVariant(variantRenameOnStart) && existing.Name != name {
		if body == nil {
			body = &client.UpdateLoadBalancerRequest{}
		}
		body.Name = name
	}
	if body == nil {
		return existing, nil
	}
	return op.c.UpdateLoadBalancer(op.ctx, existing.ID, *body)
}

// createLoadBalancer creates the load balancer (its VIP from ipBlockID when set) and waits for the action.
func (op lbCall) createLoadBalancer(spec lbSpec, ipBlockID, location string) (*client.LoadBalancer, error) {
	lb, action, err := op.c.CreateLoadBalancer(op.ctx, client.CreateLoadBalancerRequest{
		Name: op.lbName(), Labels: ownerLabels(op.cluster, op.svc), Algorithm: spec.algorithm,
		SessionAffinity: spec.sessionAffinity, Services: spec.services, Targets: spec.targets, SourceRanges: spec.sourceRanges,
		IPBlockID: ipBlockID, Location: location,
	})
	if err != nil {
		return nil, err
	}
	return lb, op.c.WaitForAction(op.ctx, action)
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
