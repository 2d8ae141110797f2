package digitalocean

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/digitalocean/godo"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	cloudprovider "k8s.io/cloud-provider"

	"ccm-sandbox/go/internal/providerkit"
)

var _ cloudprovider.LoadBalancer = (*loadBalancers)(nil)

type loadBalancers struct {
	client *godo.Client
	region string
	// kube writes the annotations DigitalOcean's CCM writes on a Service (its load balancer's id and type); set
	// by Initialize, nil in tests without a cluster (the annotations then stay on the Service object given).
	kube kubernetes.Interface
}

// lbName is the do-loadbalancer-name annotation, else cloud-provider's default name ("a" and the UID).
func lbName(svc *v1.Service) string {
	if n := svc.Annotations[AnnName]; n != "" {
		return n
	}
	return cloudprovider.DefaultLoadBalancerName(svc)
}

// retrieve is the Service's load balancer as DigitalOcean's CCM finds it: by the id annotation, else by name;
// nil when there is none.
func (l *loadBalancers) retrieve(ctx context.Context, svc *v1.Service) (*godo.LoadBalancer, error) {
	if id := svc.Annotations[AnnLoadBalancerID]; id != "" {
		lb, _, err := l.client.LoadBalancers.Get(ctx, id)
		if isNotFound(err) {
			return nil, nil
		}
		return lb, err
	}
	return l.find(ctx, svc)
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

// annotate writes the load balancer's id and type into the Service's annotations, as DigitalOcean's CCM does
// whenever it reads or creates one: from then on the type the Service asks for is the one the API shows.
// The annotations are patched onto the Service in the cluster when they changed.
func (l *loadBalancers) annotate(ctx context.Context, svc *v1.Service, lb *godo.LoadBalancer) error {
	want := map[string]string{AnnLoadBalancerID: lb.ID, AnnType: lb.Type}
	changed := map[string]string{}
	for k, v := range want {
		if svc.Annotations[k] != v {
			changed[k] = v
		}
	}
	if len(changed) == 0 {
		return nil
	}
	if svc.Annotations == nil {
		svc.Annotations = map[string]string{}
	}
	for k, v := range changed {
		svc.Annotations[k] = v
	}
	if l.kube == nil {
		return nil
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": changed}})
	if err != nil {
		return err
	}
	_, err = l.kube.CoreV1().Services(svc.Namespace).Patch(ctx, svc.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

// status is the LB's addresses (its IPv6 too, when it has one) once DigitalOcean reports it active; before,
// an error, so that the service controller retries with backoff (as DigitalOcean's CCM does).
func status(lb *godo.LoadBalancer) (*v1.LoadBalancerStatus, error) {
	if lb.Status != "active" || lb.IP == "" {
		return nil, fmt.Errorf("load balancer %s is not yet active (current status: %s)", lb.Name, lb.Status)
	}
	st := &v1.LoadBalancerStatus{Ingress: []v1.LoadBalancerIngress{{IP: lb.IP}}}
	if lb.IPv6 != "" {
		st.Ingress = append(st.Ingress, v1.LoadBalancerIngress{IP: lb.IPv6})
	}
	return st, nil
}

func (l *loadBalancers) GetLoadBalancer(ctx context.Context, _ string, service *v1.Service) (_ *v1.LoadBalancerStatus, _ bool, err error) {
	defer providerkit.Wrap(&err, ProviderName, "GetLoadBalancer")
	svc := service.DeepCopy()
	lb, err := l.retrieve(ctx, svc)
	if err != nil || lb == nil {
		return nil, false, err
	}
	if err := l.annotate(ctx, svc, lb); err != nil {
		return nil, true, err
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

// errNotFound is UpdateLoadBalancer's answer for a Service whose load balancer is gone.
var errNotFound = errors.New("load balancer not found")

// apply updates the Service's load balancer (PUT of the whole object) after writing its type into the
// Service, or creates one, and writes the id and type of what it got.
func (l *loadBalancers) apply(ctx context.Context, svc *v1.Service, nodes []*v1.Node, mayCreate bool) (*godo.LoadBalancer, error) {
	// The Service as it is, checked before anything is read or written.
	if _, err := l.request(svc, nodes); err != nil {
		return nil, err
	}
	lb, err := l.retrieve(ctx, svc)
	switch {
	case err != nil:
		return nil, err
	case lb == nil && !mayCreate:
		return nil, errNotFound
	case lb != nil:
		if err := l.annotate(ctx, svc, lb); err != nil {
			return nil, err
		}
	}
	req, err := l.request(svc, nodes)
	if err != nil {
		return nil, err
	}
	if lb == nil {
		lb, _, err = l.client.LoadBalancers.Create(ctx, req)
	} else {
		lb, _, err = l.client.LoadBalancers.Update(ctx, lb.ID, req)
	}
	if err != nil {
		return nil, err
	}
	return lb, l.annotate(ctx, svc, lb)
}

func (l *loadBalancers) EnsureLoadBalancer(ctx context.Context, _ string, service *v1.Service, nodes []*v1.Node) (_ *v1.LoadBalancerStatus, err error) {
	defer providerkit.Wrap(&err, ProviderName, "EnsureLoadBalancer")
	lb, err := l.apply(ctx, service.DeepCopy(), nodes, true)
	if err != nil {
		return nil, err
	}
	return status(lb)
}

// UpdateLoadBalancer sets the droplets (and the rest) whether or not the load balancer is active yet.
func (l *loadBalancers) UpdateLoadBalancer(ctx context.Context, _ string, service *v1.Service, nodes []*v1.Node) (err error) {
	defer providerkit.Wrap(&err, ProviderName, "UpdateLoadBalancer")
	_, err = l.apply(ctx, service.DeepCopy(), nodes, false)
	return err
}

func (l *loadBalancers) EnsureLoadBalancerDeleted(ctx context.Context, _ string, svc *v1.Service) (err error) {
	defer providerkit.Wrap(&err, ProviderName, "EnsureLoadBalancerDeleted")
	lb, err := l.retrieve(ctx, svc)
	if err != nil || lb == nil {
		return err
	}
	if _, err := l.client.LoadBalancers.Delete(ctx, lb.ID); err != nil && !isNotFound(err) {
		return err
	}
	return nil
}
