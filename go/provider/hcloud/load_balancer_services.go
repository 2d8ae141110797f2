package hcloud

import (
	"context"
	"fmt"
	"sort"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	v1 "k8s.io/api/core/v1"
	servicehelpers "k8s.io/cloud-provider/service/helpers"
)

// wantedServices are the load balancer services for a Service (pure): one per port, listening on the
// port and forwarding to its node port, with the annotations' protocol, proxy protocol and health check.
// Under externalTrafficPolicy Local the check is kube-proxy's, as upstream's providers do it: http on the
// Service's healthCheckNodePort, which answers 200 only on nodes with a ready local endpoint, unless the
// annotations chose the check's protocol, port or path. Hetzner's own CCM keeps the node port there.
func wantedServices(svc *v1.Service, o lbOptions) ([]hcloud.LoadBalancerService, error) {
	out := make([]hcloud.LoadBalancerService, 0, len(svc.Spec.Ports))
	for _, p := range svc.Spec.Ports {
		if p.Protocol != "" && p.Protocol != v1.ProtocolTCP {
			return nil, fmt.Errorf("%s/%s: port %d is %s; Hetzner load balancers carry TCP only", svc.Namespace, svc.Name, p.Port, p.Protocol)
		}
		if p.NodePort == 0 {
			return nil, fmt.Errorf("%s/%s: port %d has no node port yet", svc.Namespace, svc.Name, p.Port)
		}
		hc := hcloud.LoadBalancerServiceHealthCheck{
			Protocol: o.healthCheck.protocol, Port: int(p.NodePort),
			Interval: o.healthCheck.interval, Timeout: o.healthCheck.timeout, Retries: o.healthCheck.retries,
		}
		if o.healthCheck.port != 0 {
			hc.Port = o.healthCheck.port
		}
		switch {
		case servicehelpers.NeedsHealthCheck(svc) && svc.Spec.HealthCheckNodePort != 0 && !o.healthCheck.explicit:
			hc.Protocol, hc.Port = hcloud.LoadBalancerServiceProtocolHTTP, int(svc.Spec.HealthCheckNodePort)
			hc.HTTP = &hcloud.LoadBalancerServiceHealthCheckHTTP{Path: "/healthz"}
		case hc.Protocol == hcloud.LoadBalancerServiceProtocolHTTP:
			hc.HTTP = &hcloud.LoadBalancerServiceHealthCheckHTTP{Path: o.healthCheck.httpPath, Domain: o.healthCheck.httpDomain}
		}
		s := hcloud.LoadBalancerService{
			Protocol: o.protocol, ListenPort: int(p.Port), DestinationPort: int(p.NodePort), Proxyprotocol: o.proxyProtocol, HealthCheck: hc,
		}
		if o.protocol == hcloud.LoadBalancerServiceProtocolHTTPS {
			s.HTTP = hcloud.LoadBalancerServiceHTTP{RedirectHTTP: o.redirectHTTP}
			for _, id := range o.certificateIDs {
				s.HTTP.Certificates = append(s.HTTP.Certificates, &hcloud.Certificate{ID: id})
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// servicePlan is what reconcileServices does: services to add, to update (by listen port) and to delete.
type servicePlan struct {
	add    []hcloud.LoadBalancerService
	update []hcloud.LoadBalancerService
	remove []int
}

// planServices compares the load balancer's services with the wanted ones (pure).
func planServices(existing, wanted []hcloud.LoadBalancerService) servicePlan {
	have := map[int]hcloud.LoadBalancerService{}
	for _, s := range existing {
		have[s.ListenPort] = s
	}
	var plan servicePlan
	for _, w := range wanted {
		current, ok := have[w.ListenPort]
		delete(have, w.ListenPort)
		switch {
		case !ok:
			plan.add = append(plan.add, w)
		case !sameService(current, w):
			plan.update = append(plan.update, w)
		}
	}
	for port := range have {
		plan.remove = append(plan.remove, port)
	}
	sort.Ints(plan.remove)
	return plan
}

func sameService(a, b hcloud.LoadBalancerService) bool {
	ha, hb := a.HealthCheck, b.HealthCheck
	same := a.Protocol == b.Protocol && a.DestinationPort == b.DestinationPort && a.Proxyprotocol == b.Proxyprotocol &&
		ha.Protocol == hb.Protocol && ha.Port == hb.Port && ha.Interval == hb.Interval && ha.Timeout == hb.Timeout && ha.Retries == hb.Retries &&
		(b.Protocol != hcloud.LoadBalancerServiceProtocolHTTPS || sameTLS(a.HTTP, b.HTTP))
	if !same || hb.HTTP == nil {
		return same
	}
	return ha.HTTP != nil && ha.HTTP.Path == hb.HTTP.Path && ha.HTTP.Domain == hb.HTTP.Domain
}

// sameTLS: the same certificates, in order, and the same redirect.
func sameTLS(a, b hcloud.LoadBalancerServiceHTTP) bool {
	if len(a.Certificates) != len(b.Certificates) || a.RedirectHTTP != b.RedirectHTTP {
		return false
	}
	for i := range a.Certificates {
		if a.Certificates[i].ID != b.Certificates[i].ID {
			return false
		}
	}
	return true
}

// reconcileServices applies planServices; deletions first, so a port moving between services is free.
func (l *loadBalancers) reconcileServices(ctx context.Context, lb *hcloud.LoadBalancer, wanted []hcloud.LoadBalancerService) error {
	plan := planServices(lb.Services, wanted)
	for _, port := range plan.remove {
		a, _, err := l.client.LoadBalancer.DeleteService(ctx, lb, port)
		if err := l.wait(ctx, a, err, lb, fmt.Sprintf("delete service %d", port)); err != nil {
			return err
		}
	}
	for _, s := range plan.add {
		a, _, err := l.client.LoadBalancer.AddService(ctx, lb, addServiceOpts(s))
		if err := l.wait(ctx, a, err, lb, fmt.Sprintf("add service %d", s.ListenPort)); err != nil {
			return err
		}
	}
	for _, s := range plan.update {
		a, _, err := l.client.LoadBalancer.UpdateService(ctx, lb, s.ListenPort, updateServiceOpts(s))
		if err := l.wait(ctx, a, err, lb, fmt.Sprintf("update service %d", s.ListenPort)); err != nil {
			return err
		}
	}
	return nil
}

func (l *loadBalancers) wait(ctx context.Context, action *hcloud.Action, err error, lb *hcloud.LoadBalancer, what string) error {
	if err == nil {
		err = l.client.Action.WaitFor(ctx, action)
	}
	if err != nil {
		return fmt.Errorf("load balancer %s: %s: %w", lb.Name, what, err)
	}
	return nil
}

func addServiceOpts(s hcloud.LoadBalancerService) hcloud.LoadBalancerAddServiceOpts {
	hc := s.HealthCheck
	opts := hcloud.LoadBalancerAddServiceOpts{
		Protocol: s.Protocol, ListenPort: hcloud.Ptr(s.ListenPort), DestinationPort: hcloud.Ptr(s.DestinationPort), Proxyprotocol: hcloud.Ptr(s.Proxyprotocol),
		HealthCheck: &hcloud.LoadBalancerAddServiceOptsHealthCheck{
			Protocol: hc.Protocol, Port: hcloud.Ptr(hc.Port), Interval: hcloud.Ptr(hc.Interval), Timeout: hcloud.Ptr(hc.Timeout), Retries: hcloud.Ptr(hc.Retries),
		},
	}
	if hc.HTTP != nil {
		opts.HealthCheck.HTTP = &hcloud.LoadBalancerAddServiceOptsHealthCheckHTTP{Path: hcloud.Ptr(hc.HTTP.Path), Domain: optional(hc.HTTP.Domain)}
	}
	if s.Protocol == hcloud.LoadBalancerServiceProtocolHTTPS {
		opts.HTTP = &hcloud.LoadBalancerAddServiceOptsHTTP{Certificates: s.HTTP.Certificates, RedirectHTTP: hcloud.Ptr(s.HTTP.RedirectHTTP)}
	}
	return opts
}

func updateServiceOpts(s hcloud.LoadBalancerService) hcloud.LoadBalancerUpdateServiceOpts {
	hc := s.HealthCheck
	opts := hcloud.LoadBalancerUpdateServiceOpts{
		Protocol: s.Protocol, DestinationPort: hcloud.Ptr(s.DestinationPort), Proxyprotocol: hcloud.Ptr(s.Proxyprotocol),
		HealthCheck: &hcloud.LoadBalancerUpdateServiceOptsHealthCheck{
			Protocol: hc.Protocol, Port: hcloud.Ptr(hc.Port), Interval: hcloud.Ptr(hc.Interval), Timeout: hcloud.Ptr(hc.Timeout), Retries: hcloud.Ptr(hc.Retries),
		},
	}
	if hc.HTTP != nil {
		opts.HealthCheck.HTTP = &hcloud.LoadBalancerUpdateServiceOptsHealthCheckHTTP{Path: hcloud.Ptr(hc.HTTP.Path), Domain: optional(hc.HTTP.Domain)}
	}
	if s.Protocol == hcloud.LoadBalancerServiceProtocolHTTPS {
		opts.HTTP = &hcloud.LoadBalancerUpdateServiceOptsHTTP{Certificates: s.HTTP.Certificates, RedirectHTTP: hcloud.Ptr(s.HTTP.RedirectHTTP)}
	}
	return opts
}

// optional is nil for "" (the API's "not set"), else a pointer to s.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
