package hcloud

import (
	"context"
	"errors"
	"fmt"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/names"

	"ccm-sandbox/go/internal/providerkit"
)

var _ cloudprovider.LoadBalancer = (*loadBalancers)(nil)

// loadBalancers is the LoadBalancer capability: per Service one Hetzner load balancer, found by the
// service-uid label (else by name, so one made by hand or by another CCM is adopted), with one service per
// Service port and the Service's nodes as server targets. Every step compares before it changes, so each
// call is idempotent.
type loadBalancers struct {
	client   *hcloud.Client
	defaults LoadBalancerDefaults
	// network is the configured network (nil when none): load balancers are attached to it.
	network *hcloud.Network
}

// lenientOptions are the annotations for read-only and delete paths: invalid values fall back to defaults.
func (l *loadBalancers) lenientOptions(svc *v1.Service) lbOptions {
	o, err := parseAnnotations(svc.Annotations, l.defaults)
	if err != nil {
		o, _ = parseAnnotations(nil, l.defaults)
		o.name = svc.Annotations[AnnotationName]
		o.hostname = svc.Annotations[AnnotationHostname]
	}
	return o
}

// GetLoadBalancerName is the name annotation, else upstream's default name ("a" + the Service UID
// without dashes, at most 32 characters).
func (l *loadBalancers) GetLoadBalancerName(_ context.Context, _ string, svc *v1.Service) string {
	return loadBalancerName(svc, l.lenientOptions(svc))
}

func loadBalancerName(svc *v1.Service, o lbOptions) string {
	if o.name != "" {
		return o.name
	}
	return cloudprovider.DefaultLoadBalancerName(svc)
}

// GetLoadBalancer reports the Service's load balancer and its status.
func (l *loadBalancers) GetLoadBalancer(ctx context.Context, _ string, svc *v1.Service) (_ *v1.LoadBalancerStatus, _ bool, err error) {
	defer providerkit.Wrap(&err, ProviderName, "GetLoadBalancer")
	ctx = lbCaller(ctx, svc, "GetLoadBalancer")
	o := l.lenientOptions(svc)
	lb, err := l.find(ctx, svc, o)
	if err != nil || lb == nil {
		return nil, false, err
	}
	status, err := ingressStatus(lb, o)
	return status, err == nil, err
}

// EnsureLoadBalancer creates or updates the Service's load balancer and returns its status. Invalid
// annotations or ports fail before any cloud call.
func (l *loadBalancers) EnsureLoadBalancer(ctx context.Context, _ string, svc *v1.Service, nodes []*v1.Node) (_ *v1.LoadBalancerStatus, err error) {
	defer providerkit.Wrap(&err, ProviderName, "EnsureLoadBalancer")
	o, err := parseAnnotations(svc.Annotations, l.defaults)
	if err != nil {
		return nil, err
	}
	if _, err := wantedServices(svc, o); err != nil {
		return nil, err
	}
	ctx = lbCaller(ctx, svc, "EnsureLoadBalancer")
	if o.certificateIDs, err = l.certificateIDs(ctx, o.certificates); err != nil {
		return nil, err
	}
	services, err := wantedServices(svc, o)
	if err != nil {
		return nil, err
	}
	lb, err := l.find(ctx, svc, o)
	if err != nil {
		return nil, err
	}
	if lb == nil {
		if lb, err = l.create(ctx, svc, o); err != nil {
			return nil, err
		}
	}
	if lb, err = l.reconcile(ctx, lb, svc, o); err != nil {
		return nil, err
	}
	if err := l.reconcileServices(ctx, lb, services); err != nil {
		return nil, err
	}
	if err := l.reconcileTargets(ctx, lb, nodes, o.usePrivateIP); err != nil {
		return nil, err
	}
	if lb, _, err = l.client.LoadBalancer.GetByID(ctx, lb.ID); err != nil || lb == nil {
		return nil, fmt.Errorf("reading load balancer %s again: %w", loadBalancerName(svc, o), orNotFound(err))
	}
	return ingressStatus(lb, o)
}

// certificateIDs resolves http-certificates entries, each a certificate's name or id, as Hetzner's CCM does.
func (l *loadBalancers) certificateIDs(ctx context.Context, refs []string) ([]int64, error) {
	ids := make([]int64, 0, len(refs))
	for _, ref := range refs {
		c, _, err := l.client.Certificate.Get(ctx, ref)
		if err != nil {
			return nil, fmt.Errorf("%s: certificate %q: %w", AnnotationHTTPCertificates, ref, err)
		}
		if c == nil {
			return nil, fmt.Errorf("%s: no certificate named or numbered %q", AnnotationHTTPCertificates, ref)
		}
		ids = append(ids, c.ID)
	}
	return ids, nil
}

// UpdateLoadBalancer makes the load balancer send traffic to exactly the given nodes.
func (l *loadBalancers) UpdateLoadBalancer(ctx context.Context, _ string, svc *v1.Service, nodes []*v1.Node) (err error) {
	defer providerkit.Wrap(&err, ProviderName, "UpdateLoadBalancer")
	o, err := parseAnnotations(svc.Annotations, l.defaults)
	if err != nil {
		return err
	}
	ctx = lbCaller(ctx, svc, "UpdateLoadBalancer")
	lb, err := l.find(ctx, svc, o)
	if err != nil || lb == nil {
		return err
	}
	return l.reconcileTargets(ctx, lb, nodes, o.usePrivateIP)
}

// EnsureLoadBalancerDeleted deletes the Service's load balancer; one already gone counts as deleted.
func (l *loadBalancers) EnsureLoadBalancerDeleted(ctx context.Context, _ string, svc *v1.Service) (err error) {
	defer providerkit.Wrap(&err, ProviderName, "EnsureLoadBalancerDeleted")
	ctx = lbCaller(ctx, svc, "EnsureLoadBalancerDeleted")
	lb, err := l.find(ctx, svc, l.lenientOptions(svc))
	if err != nil || lb == nil {
		return err
	}
	result, _, err := l.client.LoadBalancer.DeleteWithResult(ctx, lb)
	if hcloud.IsError(err, hcloud.ErrorCodeNotFound) {
		return nil
	}
	if err == nil && result.Action != nil {
		err = l.client.Action.WaitFor(ctx, result.Action)
	}
	return err
}

// lbCaller attributes a call to the service-lb controller working on svc.
func lbCaller(ctx context.Context, svc *v1.Service, method string) context.Context {
	return withCaller(ctx, names.ServiceLBController, svc.Namespace+"/"+svc.Name, method)
}

// find is the load balancer labelled with the Service's UID, else the one with its name unless another
// Service's label is on it, else nil.
func (l *loadBalancers) find(ctx context.Context, svc *v1.Service, o lbOptions) (*hcloud.LoadBalancer, error) {
	selector := fmt.Sprintf("%s=%s", labelServiceUID, svc.UID)
	owned, err := l.client.LoadBalancer.AllWithOpts(ctx, hcloud.LoadBalancerListOpts{ListOpts: hcloud.ListOpts{LabelSelector: selector}})
	if err != nil {
		return nil, err
	}
	switch len(owned) {
	case 0:
	case 1:
		return owned[0], nil
	default:
		return nil, fmt.Errorf("%d load balancers carry the label %s; delete all but one", len(owned), selector)
	}
	lb, _, err := l.client.LoadBalancer.GetByName(ctx, loadBalancerName(svc, o))
	// A name finds a load balancer made by hand or before the UID label, which Hetzner's CCM imports. One
	// labelled for another Service is that Service's (a second cluster's with the same name annotation):
	// it is not this one's, to find, update or delete, and creating this one's fails on the name.
	if lb != nil && lb.Labels[labelServiceUID] != "" && lb.Labels[labelServiceUID] != string(svc.UID) {
		return nil, err
	}
	return lb, err
}

// create makes the load balancer in the wanted location (or network zone) and waits for it.
func (l *loadBalancers) create(ctx context.Context, svc *v1.Service, o lbOptions) (*hcloud.LoadBalancer, error) {
	opts := hcloud.LoadBalancerCreateOpts{
		Name:             loadBalancerName(svc, o),
		LoadBalancerType: &hcloud.LoadBalancerType{Name: o.lbType},
		Algorithm:        &hcloud.LoadBalancerAlgorithm{Type: o.algorithm},
		Labels:           map[string]string{labelServiceUID: string(svc.UID)},
	}
	switch {
	case o.location != "":
		opts.Location = &hcloud.Location{Name: o.location}
	case o.networkZone != "":
		opts.NetworkZone = o.networkZone
	default:
		return nil, fmt.Errorf("%s/%s: where to create the load balancer of %s/%s: set %s or %s, or the annotation %s or %s",
			svc.Namespace, svc.Name, svc.Namespace, svc.Name, EnvLBLocation, EnvLBNetworkZone, AnnotationLocation, AnnotationNetworkZone)
	}
	if o.disablePublicNetwork != nil {
		opts.PublicInterface = hcloud.Ptr(!*o.disablePublicNetwork)
	}
	result, _, err := l.client.LoadBalancer.Create(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("creating load balancer %s: %w", opts.Name, err)
	}
	if err := l.client.Action.WaitFor(ctx, result.Action); err != nil {
		return nil, fmt.Errorf("creating load balancer %s: %w", opts.Name, err)
	}
	return result.LoadBalancer, nil
}

// ingressStatus: the hostname annotation when set; else the public IPv4 and, unless disabled, the public IPv6
// when the public interface is on, then the private addresses unless private ingress is disabled. With the
// proxy protocol on, the IP mode is Proxy, so kube-proxy does not short-circuit in-cluster traffic.
//
// Like Hetzner's CCM, the IPv6 is written by default. A load balancer without one is an error here: Hetzner's
// CCM would write the string "<nil>", which the API server refuses (ingress[1].ip: Invalid value), so a view
// that loses the address fails our e2e runs as it fails theirs.
func ingressStatus(lb *hcloud.LoadBalancer, o lbOptions) (*v1.LoadBalancerStatus, error) {
	if o.hostname != "" {
		return &v1.LoadBalancerStatus{Ingress: []v1.LoadBalancerIngress{{Hostname: o.hostname}}}, nil
	}
	mode := v1.LoadBalancerIPModeVIP
	if o.proxyProtocol {
		mode = v1.LoadBalancerIPModeProxy
	}
	var ips []string
	if lb.PublicNet.Enabled {
		if ip := lb.PublicNet.IPv4.IP; ip != nil && !ip.IsUnspecified() {
			ips = append(ips, ip.String())
		}
		if o.ipv6 {
			ip := lb.PublicNet.IPv6.IP
			if ip == nil || ip.IsUnspecified() {
				return nil, fmt.Errorf("load balancer %s has no public IPv6 address for the status (set %s=true or the %s annotation)", lb.Name, EnvLBDisableIPv6, AnnotationIPv6Disabled)
			}
			ips = append(ips, ip.String())
		}
	}
	for _, n := range lb.PrivateNet {
		if o.privateIngress && n.IP != nil {
			ips = append(ips, n.IP.String())
		}
	}
	status := &v1.LoadBalancerStatus{}
	for _, ip := range ips {
		status.Ingress = append(status.Ingress, v1.LoadBalancerIngress{IP: ip, IPMode: &mode})
	}
	return status, nil
}

// orNotFound turns the (nil, nil) of a get that found nothing into an error.
func orNotFound(err error) error {
	if err == nil {
		return errors.New("not found")
	}
	return err
}
