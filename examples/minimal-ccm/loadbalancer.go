//go:build loadbalancer

package main

import (
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"
)

func init() {
	newLoadBalancer = func(c *cloud) cloudprovider.LoadBalancer { return &loadBalancers{cloud: c} }
}

// loadBalancers is LoadBalancer: one Hetzner load balancer per Service of type LoadBalancer, named after the
// Service's UID, with one service per Service port (listen port to the node port) and the nodes' servers as
// targets. The service controller calls it whenever the Service or the set of nodes changes.
type loadBalancers struct {
	cloud *cloud
}

// GetLoadBalancerName: "a" and the Service's UID, so the name survives the Service being renamed.
func (l *loadBalancers) GetLoadBalancerName(_ context.Context, _ string, service *v1.Service) string {
	return cloudprovider.DefaultLoadBalancerName(service)
}

func (l *loadBalancers) find(ctx context.Context, service *v1.Service) (*hcloud.LoadBalancer, error) {
	lb, _, err := l.cloud.client.LoadBalancer.GetByName(ctx, l.GetLoadBalancerName(ctx, "", service))
	return lb, err
}

// GetLoadBalancer says whether the Service has a load balancer, and its address.
func (l *loadBalancers) GetLoadBalancer(ctx context.Context, _ string, service *v1.Service) (*v1.LoadBalancerStatus, bool, error) {
	lb, err := l.find(ctx, service)
	if err != nil || lb == nil {
		return nil, false, err
	}
	return statusOf(lb), true, nil
}

func statusOf(lb *hcloud.LoadBalancer) *v1.LoadBalancerStatus {
	return &v1.LoadBalancerStatus{Ingress: []v1.LoadBalancerIngress{{IP: lb.PublicNet.IPv4.IP.String()}}}
}

// EnsureLoadBalancer makes the cloud match the Service: creates the load balancer the first time, then
// brings its services and targets in line. The address it returns goes into the Service's status.
func (l *loadBalancers) EnsureLoadBalancer(ctx context.Context, clusterName string, service *v1.Service, nodes []*v1.Node) (*v1.LoadBalancerStatus, error) {
	lb, err := l.find(ctx, service)
	if err != nil {
		return nil, err
	}
	if lb == nil {
		result, _, err := l.cloud.client.LoadBalancer.Create(ctx, hcloud.LoadBalancerCreateOpts{
			Name:             l.GetLoadBalancerName(ctx, clusterName, service),
			LoadBalancerType: &hcloud.LoadBalancerType{Name: os.Getenv("HCLOUD_LOAD_BALANCERS_TYPE")},
			Location:         &hcloud.Location{Name: os.Getenv("HCLOUD_LOAD_BALANCERS_LOCATION")},
		})
		if err != nil {
			return nil, fmt.Errorf("create load balancer: %w", err)
		}
		if err := l.cloud.client.Action.WaitFor(ctx, result.Action); err != nil {
			return nil, err
		}
		lb = result.LoadBalancer
	}
	if err := l.reconcile(ctx, lb, service, nodes); err != nil {
		return nil, err
	}
	if lb, err = l.find(ctx, service); err != nil || lb == nil {
		return nil, fmt.Errorf("load balancer gone after its update: %v", err)
	}
	return statusOf(lb), nil
}

// UpdateLoadBalancer runs when only the nodes changed: the same reconciliation.
func (l *loadBalancers) UpdateLoadBalancer(ctx context.Context, _ string, service *v1.Service, nodes []*v1.Node) error {
	lb, err := l.find(ctx, service)
	if err != nil || lb == nil {
		return fmt.Errorf("no load balancer for the Service yet (%v)", err)
	}
	return l.reconcile(ctx, lb, service, nodes)
}

// EnsureLoadBalancerDeleted removes the load balancer; one already gone is done. Only then does the service
// controller remove the Service's finalizer.
func (l *loadBalancers) EnsureLoadBalancerDeleted(ctx context.Context, _ string, service *v1.Service) error {
	lb, err := l.find(ctx, service)
	if err != nil || lb == nil {
		return err
	}
	_, err = l.cloud.client.LoadBalancer.Delete(ctx, lb)
	return err
}

// reconcile: one TCP service per Service port, to the port every node listens on for it (the NodePort), and
// the nodes' servers as targets; whatever else is there goes.
func (l *loadBalancers) reconcile(ctx context.Context, lb *hcloud.LoadBalancer, service *v1.Service, nodes []*v1.Node) error {
	var actions []*hcloud.Action
	wanted := map[int]int{}
	for _, port := range service.Spec.Ports {
		wanted[int(port.Port)] = int(port.NodePort)
	}
	for _, s := range lb.Services {
		if wanted[s.ListenPort] != s.DestinationPort {
			a, _, err := l.cloud.client.LoadBalancer.DeleteService(ctx, lb, s.ListenPort)
			if err != nil {
				return err
			}
			actions = append(actions, a)
		}
	}
	for listen, nodePort := range wanted {
		if !slices.ContainsFunc(lb.Services, func(s hcloud.LoadBalancerService) bool {
			return s.ListenPort == listen && s.DestinationPort == nodePort
		}) {
			a, _, err := l.cloud.client.LoadBalancer.AddService(ctx, lb, hcloud.LoadBalancerAddServiceOpts{
				Protocol: hcloud.LoadBalancerServiceProtocolTCP, ListenPort: hcloud.Ptr(listen), DestinationPort: hcloud.Ptr(nodePort),
			})
			if err != nil {
				return err
			}
			actions = append(actions, a)
		}
	}
	targets, err := l.targetActions(ctx, lb, nodes)
	if err != nil {
		return err
	}
	return l.cloud.client.Action.WaitFor(ctx, append(actions, targets...)...)
}

// targetActions adds the servers of nodes that are not targets yet and removes servers whose node left.
func (l *loadBalancers) targetActions(ctx context.Context, lb *hcloud.LoadBalancer, nodes []*v1.Node) ([]*hcloud.Action, error) {
	want := map[int64]bool{}
	for _, node := range nodes {
		if id, err := serverID(node.Spec.ProviderID); err == nil {
			want[id] = true
		}
	}
	var actions []*hcloud.Action
	for _, t := range lb.Targets {
		if t.Server == nil {
			continue
		}
		if !want[t.Server.Server.ID] {
			a, _, err := l.cloud.client.LoadBalancer.RemoveServerTarget(ctx, lb, t.Server.Server)
			if err != nil {
				return nil, err
			}
			actions = append(actions, a)
		}
		delete(want, t.Server.Server.ID)
	}
	for id := range want {
		a, _, err := l.cloud.client.LoadBalancer.AddServerTarget(ctx, lb, hcloud.LoadBalancerAddServerTargetOpts{Server: &hcloud.Server{ID: id}})
		if err != nil {
			return nil, err
		}
		actions = append(actions, a)
	}
	return actions, nil
}
