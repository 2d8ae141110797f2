package hcloud

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

func ptr[T any](v T) *T { return &v }

// newLoadBalancer creates an lb11 in sim-1 with one TCP service and deletes it when the test ends.
func newLoadBalancer(t *testing.T, client *hcloud.Client, opts hcloud.LoadBalancerCreateOpts) *hcloud.LoadBalancer {
	t.Helper()
	ctx := testContext(t)
	opts.Name = unique("lb")
	opts.LoadBalancerType = &hcloud.LoadBalancerType{Name: "lb11"}
	if opts.Location == nil && opts.NetworkZone == "" {
		opts.Location = &hcloud.Location{Name: "sim-1"}
	}
	created := ok(client.LoadBalancer.Create(ctx, opts)).Get(t)
	wait(t, client, created.Action)
	t.Cleanup(func() {
		if res, _, err := client.LoadBalancer.DeleteWithResult(context.Background(), created.LoadBalancer); err == nil {
			_ = client.Action.WaitFor(context.Background(), res.Action)
		}
	})
	return ok(client.LoadBalancer.GetByID(ctx, created.LoadBalancer.ID)).Get(t)
}

func TestLoadBalancerCreateWithServicesTargetsAndNetwork(t *testing.T) {
	client := NewClient(sim)
	network := newNetwork(t, client, "10.50.0.0/24")
	selector := "app=" + unique("web")
	server := newServer(t, client, map[string]string{"app": selector[4:]}, network)
	lb := newLoadBalancer(t, client, hcloud.LoadBalancerCreateOpts{
		NetworkZone: "sim-1", Network: network, Algorithm: &hcloud.LoadBalancerAlgorithm{Type: hcloud.LoadBalancerAlgorithmTypeLeastConnections},
		Services: []hcloud.LoadBalancerCreateOptsService{{
			Protocol: hcloud.LoadBalancerServiceProtocolTCP, ListenPort: ptr(80), DestinationPort: ptr(30080), Proxyprotocol: ptr(true),
			HealthCheck: &hcloud.LoadBalancerCreateOptsServiceHealthCheck{
				Protocol: hcloud.LoadBalancerServiceProtocolHTTP, Port: ptr(30081), Interval: ptr(5 * time.Second), Timeout: ptr(3 * time.Second), Retries: ptr(2),
				HTTP: &hcloud.LoadBalancerCreateOptsServiceHealthCheckHTTP{Path: ptr("/healthz"), StatusCodes: []string{"2??"}},
			},
		}},
		Targets: []hcloud.LoadBalancerCreateOptsTarget{{
			Type: hcloud.LoadBalancerTargetTypeLabelSelector, LabelSelector: hcloud.LoadBalancerCreateOptsTargetLabelSelector{Selector: selector}, UsePrivateIP: ptr(true),
		}},
	})

	if lb.LoadBalancerType == nil || lb.LoadBalancerType.Name != "lb11" || lb.Algorithm.Type != hcloud.LoadBalancerAlgorithmTypeLeastConnections {
		t.Errorf("type %+v, algorithm %+v", lb.LoadBalancerType, lb.Algorithm)
	}
	if !lb.PublicNet.Enabled || lb.PublicNet.IPv4.IP == nil || !lb.PublicNet.IPv4.IP.IsLoopback() {
		t.Errorf("public net = %+v, want enabled with a loopback VIP", lb.PublicNet)
	}
	if len(lb.PrivateNet) != 1 || lb.PrivateNet[0].Network.ID != network.ID {
		t.Errorf("private net = %+v", lb.PrivateNet)
	}
	if len(lb.Services) != 1 {
		t.Fatalf("services = %+v", lb.Services)
	}
	svc := lb.Services[0]
	hc := svc.HealthCheck
	if svc.ListenPort != 80 || svc.DestinationPort != 30080 || !svc.Proxyprotocol || hc.Protocol != hcloud.LoadBalancerServiceProtocolHTTP ||
		hc.Port != 30081 || hc.Interval != 5*time.Second || hc.Timeout != 3*time.Second || hc.Retries != 2 || hc.HTTP == nil || hc.HTTP.Path != "/healthz" {
		t.Errorf("service = %+v, health check %+v", svc, hc)
	}
	if len(lb.Targets) != 1 || lb.Targets[0].Type != hcloud.LoadBalancerTargetTypeLabelSelector || !lb.Targets[0].UsePrivateIP {
		t.Fatalf("targets = %+v", lb.Targets)
	}
	members := lb.Targets[0].Targets
	if len(members) != 1 || members[0].Server == nil || members[0].Server.Server.ID != server.ID {
		t.Errorf("label selector resolves to %+v, want server %d", members, server.ID)
	}
	got := ok(client.Server.GetByID(testContext(t), server.ID)).Get(t)
	if len(got.LoadBalancers) != 1 || got.LoadBalancers[0].ID != lb.ID {
		t.Errorf("server's load_balancers = %+v, want [%d]", got.LoadBalancers, lb.ID)
	}
}

func TestLoadBalancerServiceActions(t *testing.T) {
	client := NewClient(sim)
	ctx := testContext(t)
	lb := newLoadBalancer(t, client, hcloud.LoadBalancerCreateOpts{})

	wait(t, client, ok(client.LoadBalancer.AddService(ctx, lb, hcloud.LoadBalancerAddServiceOpts{
		Protocol: hcloud.LoadBalancerServiceProtocolHTTP, ListenPort: ptr(8080), DestinationPort: ptr(30090),
		HTTP: &hcloud.LoadBalancerAddServiceOptsHTTP{StickySessions: ptr(true), CookieName: ptr("SANDBOX")},
	})).Get(t))
	_, _, err := client.LoadBalancer.AddService(ctx, lb, hcloud.LoadBalancerAddServiceOpts{Protocol: hcloud.LoadBalancerServiceProtocolTCP, ListenPort: ptr(8080), DestinationPort: ptr(1)})
	if !hcloud.IsError(err, hcloud.ErrorCodeSourcePortAlreadyUsed) {
		t.Errorf("a second service on 8080: %v, want source_port_already_used", err)
	}
	wait(t, client, ok(client.LoadBalancer.UpdateService(ctx, lb, 8080, hcloud.LoadBalancerUpdateServiceOpts{
		DestinationPort: ptr(30091), Proxyprotocol: ptr(true),
		HealthCheck: &hcloud.LoadBalancerUpdateServiceOptsHealthCheck{Retries: ptr(4)},
	})).Get(t))
	got := ok(client.LoadBalancer.GetByID(ctx, lb.ID)).Get(t)
	if len(got.Services) != 1 {
		t.Fatalf("services = %+v", got.Services)
	}
	svc := got.Services[0]
	if svc.Protocol != hcloud.LoadBalancerServiceProtocolHTTP || svc.DestinationPort != 30091 || !svc.Proxyprotocol || svc.HealthCheck.Retries != 4 ||
		!svc.HTTP.StickySessions || svc.HTTP.CookieName != "SANDBOX" {
		t.Errorf("after update_service: %+v (http %+v, health check %+v)", svc, svc.HTTP, svc.HealthCheck)
	}
	wait(t, client, ok(client.LoadBalancer.DeleteService(ctx, lb, 8080)).Get(t))
	if got = ok(client.LoadBalancer.GetByID(ctx, lb.ID)).Get(t); len(got.Services) != 0 {
		t.Errorf("services after delete_service = %+v", got.Services)
	}
	_, _, err = client.LoadBalancer.DeleteService(ctx, lb, 8080)
	if !hcloud.IsError(err, hcloud.ErrorCodeNotFound) {
		t.Errorf("deleting a missing service: %v, want not_found", err)
	}
}

func TestLoadBalancerTargetActions(t *testing.T) {
	client := NewClient(sim)
	ctx := testContext(t)
	network := newNetwork(t, client, "10.51.0.0/24")
	server := newServer(t, client, nil, network)
	lb := newLoadBalancer(t, client, hcloud.LoadBalancerCreateOpts{})

	_, _, err := client.LoadBalancer.AddServerTarget(ctx, lb, hcloud.LoadBalancerAddServerTargetOpts{Server: server, UsePrivateIP: ptr(true)})
	if !hcloud.IsError(err, hcloud.ErrorCodeLoadBalancerNotAttachedToNetwork) {
		t.Errorf("use_private_ip off any network: %v, want load_balancer_not_attached_to_network", err)
	}
	wait(t, client, ok(client.LoadBalancer.AttachToNetwork(ctx, lb, hcloud.LoadBalancerAttachToNetworkOpts{Network: network})).Get(t))
	_, _, err = client.LoadBalancer.AttachToNetwork(ctx, lb, hcloud.LoadBalancerAttachToNetworkOpts{Network: network})
	if !hcloud.IsError(err, hcloud.ErrorCodeLoadBalancerAlreadyAttached) {
		t.Errorf("attaching twice: %v, want load_balancer_already_attached", err)
	}
	wait(t, client,
		ok(client.LoadBalancer.AddServerTarget(ctx, lb, hcloud.LoadBalancerAddServerTargetOpts{Server: server, UsePrivateIP: ptr(true)})).Get(t))
	wait(t, client, ok(client.LoadBalancer.AddLabelSelectorTarget(ctx, lb, hcloud.LoadBalancerAddLabelSelectorTargetOpts{Selector: "tier=edge"})).Get(t))
	wait(t, client, ok(client.LoadBalancer.AddIPTarget(ctx, lb, hcloud.LoadBalancerAddIPTargetOpts{IP: net.ParseIP("127.0.0.9")})).Get(t))
	_, _, err = client.LoadBalancer.AddServerTarget(ctx, lb, hcloud.LoadBalancerAddServerTargetOpts{Server: server})
	if !hcloud.IsError(err, hcloud.ErrorCodeTargetAlreadyDefined) {
		t.Errorf("adding the server twice: %v, want target_already_defined", err)
	}
	got := ok(client.LoadBalancer.GetByID(ctx, lb.ID)).Get(t)
	kinds := map[hcloud.LoadBalancerTargetType]bool{}
	for _, target := range got.Targets {
		kinds[target.Type] = true
	}
	if len(got.Targets) != 3 || !kinds[hcloud.LoadBalancerTargetTypeServer] || !kinds[hcloud.LoadBalancerTargetTypeLabelSelector] || !kinds[hcloud.LoadBalancerTargetTypeIP] {
		t.Errorf("targets = %+v", got.Targets)
	}

	wait(t, client, ok(client.LoadBalancer.RemoveServerTarget(ctx, lb, server)).Get(t))
	wait(t, client, ok(client.LoadBalancer.RemoveLabelSelectorTarget(ctx, lb, "tier=edge")).Get(t))
	wait(t, client, ok(client.LoadBalancer.RemoveIPTarget(ctx, lb, net.ParseIP("127.0.0.9"))).Get(t))
	if got = ok(client.LoadBalancer.GetByID(ctx, lb.ID)).Get(t); len(got.Targets) != 0 {
		t.Errorf("targets after removal = %+v", got.Targets)
	}
	wait(t, client, ok(client.LoadBalancer.DetachFromNetwork(ctx, lb, hcloud.LoadBalancerDetachFromNetworkOpts{Network: network})).Get(t))
	if got = ok(client.LoadBalancer.GetByID(ctx, lb.ID)).Get(t); len(got.PrivateNet) != 0 {
		t.Errorf("private net after detach = %+v", got.PrivateNet)
	}
}

func TestLoadBalancerSettingsActions(t *testing.T) {
	client := NewClient(sim)
	ctx := testContext(t)
	lb := newLoadBalancer(t, client, hcloud.LoadBalancerCreateOpts{})

	wait(t, client, ok(client.LoadBalancer.ChangeAlgorithm(ctx, lb, hcloud.LoadBalancerChangeAlgorithmOpts{Type: hcloud.LoadBalancerAlgorithmTypeLeastConnections})).Get(t))
	wait(t, client, ok(client.LoadBalancer.ChangeType(ctx, lb, hcloud.LoadBalancerChangeTypeOpts{LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb21"}})).Get(t))
	wait(t, client, ok(client.LoadBalancer.DisablePublicInterface(ctx, lb)).Get(t))
	wait(t, client, ok(client.LoadBalancer.ChangeDNSPtr(ctx, lb, lb.PublicNet.IPv4.IP.String(), ptr("lb.example.test"))).Get(t))
	got := ok(client.LoadBalancer.GetByID(ctx, lb.ID)).Get(t)
	if got.Algorithm.Type != hcloud.LoadBalancerAlgorithmTypeLeastConnections || got.LoadBalancerType.Name != "lb21" || got.PublicNet.Enabled ||
		got.PublicNet.IPv4.DNSPtr != "lb.example.test" {
		t.Errorf("after the settings actions: algorithm %s, type %s, public %v, dns_ptr %q",
			got.Algorithm.Type, got.LoadBalancerType.Name, got.PublicNet.Enabled, got.PublicNet.IPv4.DNSPtr)
	}
	wait(t, client, ok(client.LoadBalancer.EnablePublicInterface(ctx, lb)).Get(t))
	if got = ok(client.LoadBalancer.GetByID(ctx, lb.ID)).Get(t); !got.PublicNet.Enabled {
		t.Error("public interface still disabled after enable_public_interface")
	}
	_, _, err := client.LoadBalancer.ChangeType(ctx, lb, hcloud.LoadBalancerChangeTypeOpts{LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb99"}})
	if !hcloud.IsError(err, hcloud.ErrorCodeInvalidInput) {
		t.Errorf("an unknown type: %v, want invalid_input", err)
	}
}

func TestLoadBalancerListUpdateAndDelete(t *testing.T) {
	client := NewClient(sim)
	ctx := testContext(t)
	lb := newLoadBalancer(t, client, hcloud.LoadBalancerCreateOpts{})
	updated := ok(client.LoadBalancer.Update(ctx, lb, hcloud.LoadBalancerUpdateOpts{Labels: map[string]string{"svc": lb.Name}})).Get(t)
	if updated.Labels["svc"] != lb.Name {
		t.Errorf("labels = %v", updated.Labels)
	}
	byLabel := all(client.LoadBalancer.AllWithOpts(ctx, hcloud.LoadBalancerListOpts{ListOpts: hcloud.ListOpts{LabelSelector: "svc=" + lb.Name}})).Get(t)
	byName := ok(client.LoadBalancer.GetByName(ctx, lb.Name)).Get(t)
	if len(byLabel) != 1 || byLabel[0].ID != lb.ID || byName == nil || byName.ID != lb.ID {
		t.Errorf("by label %+v, by name %+v; want id %d", byLabel, byName, lb.ID)
	}
	result := ok(client.LoadBalancer.DeleteWithResult(ctx, lb)).Get(t)
	wait(t, client, result.Action)
	if gone := ok(client.LoadBalancer.GetByID(ctx, lb.ID)).Get(t); gone != nil {
		t.Errorf("load balancer %d still there after delete", lb.ID)
	}
}
