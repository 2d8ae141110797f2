package digitalocean

import (
	"context"
	"fmt"

	"github.com/digitalocean/godo"
	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"

	"ccm-sandbox/go/internal/providerkit"
)

var _ cloudprovider.LoadBalancer = (*loadBalancers)(nil)

type loadBalancers struct {
	client *godo.Client
	region string
}

// lbName is the do-loadbalancer-name annotation, else cloud-provider's default name ("a" and the UID).
func lbName(svc *v1.Service) string {
	if n := svc.Annotations[AnnName]; n != "" {
		return n
	}
	return cloudprovider.DefaultLoadBalancerName(svc)
}

// find pages through every load balancer for the one named like the Service's.
func (l *loadBalancers) find(ctx context.Context, svc *v1.Service) (*godo.LoadBalancer, error) {
	name := lbName(svc)
	opt := &godo.ListOptions{PerPage: 200}
	for {
		list, resp, err := l.client.LoadBalancers.List(ctx, opt)
		if err != nil {
			return nil, err
		}
		for i := range list {
			if list[i].Name == name {
				return &list[i], nil
			}
		}
		if resp.Links == nil || resp.Links.IsLastPage() {
			return nil, nil
		}
		page, err := resp.Links.CurrentPage()
		if err != nil {
			return nil, err
		}
		opt.Page = page + 1
	}
}

// status is the LB's address once DigitalOcean reports it active; before, an error, so that the service
// controller retries with backoff (as DigitalOcean's CCM does).
func status(lb *godo.LoadBalancer) (*v1.LoadBalancerStatus, error) {
	if lb.Status != "active" || lb.IP == "" {
		return nil, fmt.Errorf("load balancer %s is not yet active (current status: %s)", lb.Name, lb.Status)
	}
	return &v1.LoadBalancerStatus{Ingress: []v1.LoadBalancerIngress{{IP: lb.IP}}}, nil
}

func (l *loadBalancers) GetLoadBalancer(ctx context.Context, _ string, svc *v1.Service) (_ *v1.LoadBalancerStatus, _ bool, err error) {
	defer providerkit.Wrap(&err, ProviderName, "GetLoadBalancer")
	lb, err := l.find(ctx, svc)
	if err != nil || lb == nil {
		return nil, false, err
	}
	st, err := status(lb)
	if err != nil {
		return &v1.LoadBalancerStatus{}, true, nil
	}
	return st, true, nil
}

func (l *loadBalancers) GetLoadBalancerName(_ context.Context, _ string, svc *v1.Service) string {
	return lbName(svc)
}

// request is the whole desired load balancer: one forwarding rule per Service port to its NodePort on
// every node's droplet.
func (l *loadBalancers) request(svc *v1.Service, nodes []*v1.Node) (*godo.LoadBalancerRequest, error) {
	o, err := parseOptions(svc)
	if err != nil {
		return nil, err
	}
	rules := make([]godo.ForwardingRule, 0, len(svc.Spec.Ports))
	for _, p := range svc.Spec.Ports {
		if p.Protocol != v1.ProtocolTCP {
			return nil, fmt.Errorf("port %d: protocol %s is not supported; DigitalOcean load balancers forward TCP", p.Port, p.Protocol)
		}
		rules = append(rules, godo.ForwardingRule{EntryProtocol: o.protocol, EntryPort: int(p.Port), TargetProtocol: o.protocol, TargetPort: int(p.NodePort)})
	}
	ids := make([]int, 0, len(nodes))
	for _, n := range nodes {
		if id, err := ParseProviderID(n.Spec.ProviderID); err == nil {
			ids = append(ids, id)
		}
	}
	req := &godo.LoadBalancerRequest{
		Name: lbName(svc), Region: l.region, SizeUnit: uint32(o.sizeUnit), Algorithm: o.algorithm, ForwardingRules: rules, DropletIDs: ids,
		EnableProxyProtocol: o.proxyProtocol,
		HealthCheck: &godo.HealthCheck{
			Protocol: o.health.protocol, Port: o.health.port, CheckIntervalSeconds: o.health.interval, ResponseTimeoutSeconds: o.health.timeout,
			UnhealthyThreshold: o.health.unhealthy, HealthyThreshold: o.health.ok,
		},
		StickySessions: &godo.StickySessions{Type: "none"},
	}
	if o.health.protocol != "tcp" {
		req.HealthCheck.Path = o.health.path
	}
	if o.sticky != nil {
		req.StickySessions = &godo.StickySessions{Type: "cookies", CookieName: o.sticky.cookie, CookieTtlSeconds: o.sticky.ttl}
	}
	return req, nil
}

// apply creates the load balancer or replaces it whole (PUT) with the desired one.
func (l *loadBalancers) apply(ctx context.Context, svc *v1.Service, nodes []*v1.Node) (*godo.LoadBalancer, error) {
	req, err := l.request(svc, nodes)
	if err != nil {
		return nil, err
	}
	lb, err := l.find(ctx, svc)
	if err != nil {
		return nil, err
	}
	if lb == nil {
		lb, _, err = l.client.LoadBalancers.Create(ctx, req)
	} else {
		lb, _, err = l.client.LoadBalancers.Update(ctx, lb.ID, req)
	}
	return lb, err
}

func (l *loadBalancers) EnsureLoadBalancer(ctx context.Context, _ string, svc *v1.Service, nodes []*v1.Node) (_ *v1.LoadBalancerStatus, err error) {
	defer providerkit.Wrap(&err, ProviderName, "EnsureLoadBalancer")
	lb, err := l.apply(ctx, svc, nodes)
	if err != nil {
		return nil, err
	}
	return status(lb)
}

// UpdateLoadBalancer sets the droplets (and the rest) whether or not the load balancer is active yet.
func (l *loadBalancers) UpdateLoadBalancer(ctx context.Context, _ string, svc *v1.Service, nodes []*v1.Node) (err error) {
	defer providerkit.Wrap(&err, ProviderName, "UpdateLoadBalancer")
	_, err = l.apply(ctx, svc, nodes)
	return err
}

func (l *loadBalancers) EnsureLoadBalancerDeleted(ctx context.Context, _ string, svc *v1.Service) (err error) {
	defer providerkit.Wrap(&err, ProviderName, "EnsureLoadBalancerDeleted")
	lb, err := l.find(ctx, svc)
	if err != nil || lb == nil {
		return err
	}
	if _, err := l.client.LoadBalancers.Delete(ctx, lb.ID); err != nil && !isNotFound(err) {
		return err
	}
	return nil
}
