package phoenixnap

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/phoenixnap/go-sdk-bmc/ipapi"
	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"

	"ccm-sandbox/go/internal/providerkit"
	"ccm-sandbox/go/provider/simcloud/client"
)

var _ cloudprovider.LoadBalancer = (*loadBalancers)(nil)

// The tags phoenixNAP's CCM puts on a Service's block (its cluster tag holds the cluster name here).
const (
	usageTag   = "usage"
	usageValue = "cloud-provider-phoenixnap-auto"
	blockSize  = "/29"
)

// loadBalancers is the IP-block strategy: the Service's block through the IP API, and the simcloud load
// balancer on it (its VIP the block's third address) forwarding the Service's ports to the nodes' NodePorts.
type loadBalancers struct {
	ip       *ipapi.APIClient
	sim      *client.Client
	location string
}

func blockTags(cluster string, svc *v1.Service) map[string]string {
	return map[string]string{usageTag: usageValue, "cluster": cluster, "serviceNamespace": svc.Namespace, "serviceName": svc.Name}
}

// GetLoadBalancerName names the simcloud load balancer of the Service.
func (l *loadBalancers) GetLoadBalancerName(_ context.Context, _ string, svc *v1.Service) string {
	return "pnap-" + string(svc.UID)
}

// findBlock is the Service's block, found by its tags as phoenixNAP's CCM finds it (nil: none).
func (l *loadBalancers) findBlock(ctx context.Context, cluster string, svc *v1.Service) (*ipapi.IpBlock, error) {
	var filter []string
	for k, v := range blockTags(cluster, svc) {
		filter = append(filter, k+"."+v)
	}
	slices.Sort(filter)
	blocks, _, err := l.ip.IPBlocksApi.IpBlocksGet(ctx).Tag(filter).Execute()
	switch {
	case err != nil:
		return nil, err
	case len(blocks) > 1:
		return nil, fmt.Errorf("%d IP blocks are tagged for Service %s/%s", len(blocks), svc.Namespace, svc.Name)
	case len(blocks) == 0:
		return nil, nil
	}
	return &blocks[0], nil
}

func (l *loadBalancers) findLB(ctx context.Context, svc *v1.Service) (*client.LoadBalancer, error) {
	lbs, _, err := l.sim.ListLoadBalancers(ctx, client.ListOpts{Name: l.GetLoadBalancerName(ctx, "", svc)})
	if err != nil || len(lbs) == 0 {
		return nil, err
	}
	return &lbs[0], nil
}

func status(lb *client.LoadBalancer) *v1.LoadBalancerStatus {
	return &v1.LoadBalancerStatus{Ingress: []v1.LoadBalancerIngress{{IP: lb.PublicIPv4}}}
}

// GetLoadBalancer reports the Service's load balancer, when it has both its block and its simcloud load balancer.
func (l *loadBalancers) GetLoadBalancer(ctx context.Context, cluster string, svc *v1.Service) (_ *v1.LoadBalancerStatus, _ bool, err error) {
	defer providerkit.Wrap(&err, ProviderName, "GetLoadBalancer")
	block, err := l.findBlock(ctx, cluster, svc)
	if err != nil || block == nil {
		return nil, false, err
	}
	lb, err := l.findLB(ctx, svc)
	if err != nil || lb == nil {
		return nil, false, err
	}
	return status(lb), true, nil
}

// ensureBlock finds the Service's block or makes a /29 in the annotated location (else PNAP_LOCATION).
func (l *loadBalancers) ensureBlock(ctx context.Context, cluster string, svc *v1.Service, location string) (*ipapi.IpBlock, error) {
	block, err := l.findBlock(ctx, cluster, svc)
	if err != nil || block != nil {
		return block, err
	}
	var tags []ipapi.TagAssignmentRequest
	for k, v := range blockTags(cluster, svc) {
		tags = append(tags, ipapi.TagAssignmentRequest{Name: k, Value: &v})
	}
	desc := "load balancer IP block of " + svc.Namespace + "/" + svc.Name
	block, _, err = l.ip.IPBlocksApi.IpBlocksPost(ctx).IpBlockCreate(ipapi.IpBlockCreate{Location: location, CidrBlockSize: blockSize, Description: &desc, Tags: tags}).Execute()
	return block, err
}

// simcloudBlockID is the simcloud id of a phoenixNAP block: the same resource, found through /v1 by its tags and CIDR.
func (l *loadBalancers) simcloudBlockID(ctx context.Context, cluster string, svc *v1.Service, block *ipapi.IpBlock) (string, error) {
	blocks, err := l.sim.ListAllIPBlocks(ctx, blockTags(cluster, svc))
	if err != nil {
		return "", err
	}
	for _, b := range blocks {
		if b.CIDR == block.Cidr {
			return b.ID, nil
		}
	}
	return "", fmt.Errorf("IP block %s (%s) is not in simcloud's /v1", block.Id, block.Cidr)
}

// EnsureLoadBalancer makes or updates the Service's block and the load balancer carrying its traffic.
func (l *loadBalancers) EnsureLoadBalancer(ctx context.Context, cluster string, svc *v1.Service, nodes []*v1.Node) (_ *v1.LoadBalancerStatus, err error) {
	defer providerkit.Wrap(&err, ProviderName, "EnsureLoadBalancer")
	cfg, err := parseAnnotations(svc, l.location)
	if err != nil {
		return nil, err
	}
	services, err := listeners(svc, cfg)
	if err != nil {
		return nil, err
	}
	targets, err := l.targets(ctx, nodes)
	if err != nil {
		return nil, err
	}
	block, err := l.ensureBlock(ctx, cluster, svc, cfg.location)
	if err != nil {
		return nil, err
	}
	lb, err := l.findLB(ctx, svc)
	if err != nil {
		return nil, err
	}
	if lb == nil {
		lb, err = l.createLB(ctx, cluster, svc, block, services, targets)
	} else if !slices.Equal(lb.Services, services) || !slices.Equal(lb.Targets, targets) {
		lb, err = l.sim.UpdateLoadBalancer(ctx, lb.ID, client.UpdateLoadBalancerRequest{Services: &services, Targets: &targets})
	}
	if err != nil {
		return nil, err
	}
	return status(lb), nil
}

func (l *loadBalancers) createLB(ctx context.Context, cluster string, svc *v1.Service, block *ipapi.IpBlock, services []client.LoadBalancerService, targets []client.LoadBalancerTarget) (*client.LoadBalancer, error) {
	blockID, err := l.simcloudBlockID(ctx, cluster, svc, block)
	if err != nil {
		return nil, err
	}
	lb, action, err := l.sim.CreateLoadBalancer(ctx, client.CreateLoadBalancerRequest{
		Name: l.GetLoadBalancerName(ctx, cluster, svc), Location: block.Location, Services: services, Targets: targets, IPBlockID: blockID, SourceRanges: []string{},
	})
	if err != nil {
		return nil, err
	}
	return lb, l.sim.WaitForAction(ctx, action)
}

// UpdateLoadBalancer points the Service's load balancer at the nodes.
func (l *loadBalancers) UpdateLoadBalancer(ctx context.Context, _ string, svc *v1.Service, nodes []*v1.Node) (err error) {
	defer providerkit.Wrap(&err, ProviderName, "UpdateLoadBalancer")
	lb, err := l.findLB(ctx, svc)
	if err != nil || lb == nil {
		return err
	}
	targets, err := l.targets(ctx, nodes)
	if err != nil || slices.Equal(lb.Targets, targets) {
		return err
	}
	_, err = l.sim.UpdateLoadBalancer(ctx, lb.ID, client.UpdateLoadBalancerRequest{Targets: &targets})
	return err
}

// EnsureLoadBalancerDeleted deletes the load balancer (which leaves the block unassigned) and then the block.
func (l *loadBalancers) EnsureLoadBalancerDeleted(ctx context.Context, cluster string, svc *v1.Service) (err error) {
	defer providerkit.Wrap(&err, ProviderName, "EnsureLoadBalancerDeleted")
	lb, err := l.findLB(ctx, svc)
	if err != nil {
		return err
	}
	if lb != nil && lb.Status != "deleting" {
		action, err := l.sim.DeleteLoadBalancer(ctx, lb.ID)
		if err != nil && !client.IsNotFound(err) {
			return err
		}
		if action != nil {
			if err := l.sim.WaitForAction(ctx, action); err != nil {
				return err
			}
		}
	}
	block, err := l.findBlock(ctx, cluster, svc)
	if err != nil || block == nil {
		return err
	}
	_, res, err := l.ip.IPBlocksApi.IpBlocksIpBlockIdDelete(ctx, block.Id).Execute()
	if res != nil && res.StatusCode == http.StatusNotFound {
		return nil
	}
	return err
}

// listeners: one TCP listener per Service port, to the port's NodePort, with the annotated health check.
func listeners(svc *v1.Service, cfg lbConfig) ([]client.LoadBalancerService, error) {
	var out []client.LoadBalancerService
	for _, p := range svc.Spec.Ports {
		if p.Protocol != "" && p.Protocol != v1.ProtocolTCP {
			return nil, errors.New("port " + p.Name + ": only TCP is supported")
		}
		hc := client.HealthCheck{Protocol: cfg.hcProtocol, Path: cfg.hcPath, IntervalSeconds: float64(cfg.hcInterval), TimeoutSeconds: 1, Retries: cfg.hcRetries}
		out = append(out, client.LoadBalancerService{Protocol: "tcp", ListenPort: int(p.Port), DestinationPort: int(p.NodePort), ProxyProtocol: cfg.proxy, HealthCheck: hc})
	}
	slices.SortFunc(out, func(a, b client.LoadBalancerService) int { return a.ListenPort - b.ListenPort })
	return out, nil
}

// targets are the nodes' simcloud servers, found by name through /v1, in id order.
func (l *loadBalancers) targets(ctx context.Context, nodes []*v1.Node) ([]client.LoadBalancerTarget, error) {
	servers, err := l.sim.ListAllServers(ctx, client.ListOpts{})
	if err != nil {
		return nil, err
	}
	byName := map[string]string{}
	for _, s := range servers {
		byName[s.Name] = s.ID
	}
	var ids []string
	for _, n := range nodes {
		if id, ok := byName[n.Name]; ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	out := make([]client.LoadBalancerTarget, 0, len(ids))
	for _, id := range ids {
		out = append(out, client.LoadBalancerTarget{Kind: client.TargetServer, ServerID: id})
	}
	return out, nil
}
