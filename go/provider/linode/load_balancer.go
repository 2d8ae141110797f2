package linode

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/linode/linodego/v2"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	cloudprovider "k8s.io/cloud-provider"

	"ccm-sandbox/go/internal/providerkit"
)

var _ cloudprovider.LoadBalancer = (*loadBalancers)(nil)

type loadBalancers struct {
	client *linodego.Client
	region string
	// kube reads the TLS Secrets https ports name; set by Initialize, nil without a cluster (an https port is
	// then an error).
	kube kubernetes.Interface
}

// nbLabel is the NodeBalancer's label: "ccm-" and the Service's UID, within Linode's 32 characters.
func nbLabel(svc *v1.Service) string {
	uid := strings.ReplaceAll(string(svc.UID), "-", "")
	if len(uid) > 28 {
		uid = uid[:28]
	}
	return "ccm-" + uid
}

func (l *loadBalancers) find(ctx context.Context, svc *v1.Service) (*linodego.NodeBalancer, error) {
	filter, err := json.Marshal(map[string]string{"label": nbLabel(svc)})
	if err != nil {
		return nil, err
	}
	list, err := l.client.ListNodeBalancers(ctx, &linodego.ListOptions{Filter: string(filter)})
	if err != nil || len(list) == 0 {
		return nil, err
	}
	return &list[0], nil
}

func status(nb *linodego.NodeBalancer) *v1.LoadBalancerStatus {
	if nb.IPv4 == nil {
		return &v1.LoadBalancerStatus{}
	}
	return &v1.LoadBalancerStatus{Ingress: []v1.LoadBalancerIngress{{IP: *nb.IPv4}}}
}

func (l *loadBalancers) GetLoadBalancer(ctx context.Context, _ string, svc *v1.Service) (_ *v1.LoadBalancerStatus, _ bool, err error) {
	defer providerkit.Wrap(&err, ProviderName, "GetLoadBalancer")
	nb, err := l.find(ctx, svc)
	if err != nil || nb == nil {
		return nil, false, err
	}
	return status(nb), true, nil
}

func (l *loadBalancers) GetLoadBalancerName(_ context.Context, _ string, svc *v1.Service) string {
	return nbLabel(svc)
}

func (l *loadBalancers) EnsureLoadBalancer(ctx context.Context, clusterName string, svc *v1.Service, nodes []*v1.Node) (_ *v1.LoadBalancerStatus, err error) {
	defer providerkit.Wrap(&err, ProviderName, "EnsureLoadBalancer")
	opts, err := l.options(ctx, svc)
	if err != nil {
		return nil, err
	}
	nb, err := l.find(ctx, svc)
	if err != nil {
		return nil, err
	}
	tags := append([]string{"kubernetes"}, opts.tags...)
	if clusterName != "" {
		tags = append(tags, clusterName)
	}
	if nb == nil {
		return l.create(ctx, svc, nodes, opts, tags)
	}
	if nb, err = l.client.UpdateNodeBalancer(ctx, nb.ID, linodego.NodeBalancerUpdateOptions{ClientConnThrottle: &opts.throttle, Tags: tags}); err != nil {
		return nil, err
	}
	if err := l.reconcile(ctx, nb.ID, svc, nodes, opts); err != nil {
		return nil, err
	}
	return status(nb), nil
}

// options are the Service's annotations and its ports' protocols and certificates, all read before any cloud
// call.
func (l *loadBalancers) options(ctx context.Context, svc *v1.Service) (lbOptions, error) {
	opts, err := parseOptions(svc)
	if err != nil {
		return opts, err
	}
	opts.ports, err = portSettings(ctx, l.kube, svc, opts.protocol)
	return opts, err
}

func (l *loadBalancers) create(ctx context.Context, svc *v1.Service, nodes []*v1.Node, opts lbOptions, tags []string) (*v1.LoadBalancerStatus, error) {
	configs := make([]linodego.NodeBalancerConfigCreateOptions, 0, len(svc.Spec.Ports))
	for _, p := range svc.Spec.Ports {
		c, err := configFor(p, opts)
		if err != nil {
			return nil, err
		}
		if c.Nodes, err = nodesFor(nodes, p.NodePort); err != nil {
			return nil, err
		}
		configs = append(configs, c)
	}
	label := nbLabel(svc)
	nb, err := l.client.CreateNodeBalancer(ctx, linodego.NodeBalancerCreateOptions{
		Label: &label, Region: l.region, ClientConnThrottle: &opts.throttle, Tags: tags, Configs: configs,
	})
	if err != nil {
		return nil, err
	}
	return status(nb), nil
}

func (l *loadBalancers) UpdateLoadBalancer(ctx context.Context, _ string, svc *v1.Service, nodes []*v1.Node) (err error) {
	defer providerkit.Wrap(&err, ProviderName, "UpdateLoadBalancer")
	opts, err := l.options(ctx, svc)
	if err != nil {
		return err
	}
	nb, err := l.find(ctx, svc)
	if err != nil {
		return err
	}
	if nb == nil {
		return fmt.Errorf("no NodeBalancer %s for service %s/%s", nbLabel(svc), svc.Namespace, svc.Name)
	}
	return l.reconcile(ctx, nb.ID, svc, nodes, opts)
}

func (l *loadBalancers) EnsureLoadBalancerDeleted(ctx context.Context, _ string, svc *v1.Service) (err error) {
	defer providerkit.Wrap(&err, ProviderName, "EnsureLoadBalancerDeleted")
	nb, err := l.find(ctx, svc)
	if err != nil || nb == nil {
		return err
	}
	if err := l.client.DeleteNodeBalancer(ctx, nb.ID); err != nil && !linodego.IsNotFound(err) {
		return err
	}
	return nil
}
