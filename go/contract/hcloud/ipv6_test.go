package hcloud

import (
	"context"
	"net"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// documentation is 2001:db8::/32, where simcloud's IPv6 addresses come from: no one routes it and nothing in the
// sandbox listens on or dials them (data only).
var documentation = &net.IPNet{IP: net.ParseIP("2001:db8::"), Mask: net.CIDRMask(32, 128)}

// Hetzner's CCM writes lb.PublicNet.IPv6.IP.String() into the Service status by default and sends it to
// change_dns_ptr for the load-balancer.hetzner.cloud/ipv6-rdns annotation. When the dialect answered
// public_net.ipv6.ip null, that string was "<nil>" and the API server refused the status
// (status.loadBalancer.ingress[1].ip: Invalid value: "<nil>"), so no Service of Hetzner's CCM got an address.
func TestLoadBalancerIPv6AsHetznersCCMUsesIt(t *testing.T) {
	client := NewClient(sim)
	ctx := testContext(t)
	lb := newLoadBalancer(t, client, hcloud.LoadBalancerCreateOpts{})

	ip := lb.PublicNet.IPv6.IP
	if ip == nil || ip.To4() != nil || ip.IsUnspecified() || !documentation.Contains(ip) {
		t.Fatalf("public_net.ipv6.ip = %v, want an IPv6 address of %s", ip, documentation)
	}
	if parsed := net.ParseIP(ip.String()); parsed == nil || !parsed.Equal(ip) {
		t.Fatalf("%q (what the CCM writes into the status) is not a valid IP", ip.String())
	}
	v4ptr := lb.PublicNet.IPv4.DNSPtr

	wait(t, client, ok(client.LoadBalancer.ChangeDNSPtr(ctx, lb, ip.String(), ptr("v6.example.test"))).Get(t))
	got := ok(client.LoadBalancer.GetByID(ctx, lb.ID)).Get(t)
	if got.PublicNet.IPv6.DNSPtr != "v6.example.test" || !got.PublicNet.IPv6.IP.Equal(ip) || got.PublicNet.IPv4.DNSPtr != v4ptr {
		t.Errorf("after change_dns_ptr on the IPv6: ipv6 %+v, ipv4 dns_ptr %q (was %q)", got.PublicNet.IPv6, got.PublicNet.IPv4.DNSPtr, v4ptr)
	}

	other := ok(client.LoadBalancer.GetByID(ctx, newLoadBalancer(t, client, hcloud.LoadBalancerCreateOpts{}).ID)).Get(t)
	if other.PublicNet.IPv6.IP.Equal(ip) {
		t.Errorf("two load balancers share the IPv6 %s", ip)
	}
	_, _, err := client.LoadBalancer.ChangeDNSPtr(ctx, lb, other.PublicNet.IPv6.IP.String(), ptr("x.example.test"))
	if !hcloud.IsError(err, hcloud.ErrorCodeInvalidInput) {
		t.Errorf("change_dns_ptr with another load balancer's IPv6: %v, want invalid_input", err)
	}
}

// Hetzner's CCM reads a server's public_net.ipv6 (hcloud-go parses the /64 network into IP and Network) and, for
// the ipv6 and dualstack address families, reports the network's ::1 as a Node ExternalIP.
func TestServerIPv6AsHetznersCCMReadsIt(t *testing.T) {
	client := NewClient(sim)
	ctx := testContext(t)
	server := newServer(t, client, nil)

	v6 := server.PublicNet.IPv6
	if v6.IsUnspecified() || v6.Network == nil || !documentation.Contains(v6.IP) {
		t.Fatalf("public_net.ipv6 = %+v, want a network of %s", v6, documentation)
	}
	if ones, bits := v6.Network.Mask.Size(); ones != 64 || bits != 128 || !v6.Network.IP.Equal(v6.IP) {
		t.Fatalf("public_net.ipv6 network %s, IP %s: want a /64 and its network address", v6.Network, v6.IP)
	}
	host := make(net.IP, len(v6.IP))
	copy(host, v6.IP)
	host[len(host)-1] |= 1 // the CCM's node address: the /64's ::1

	wait(t, client, ok(client.Server.ChangeDNSPtr(ctx, server, host.String(), ptr("node.example.test"))).Get(t))
	got := ok(client.Server.GetByID(ctx, server.ID)).Get(t)
	if got.PublicNet.IPv6.DNSPtr[host.String()] != "node.example.test" {
		t.Errorf("ipv6 dns_ptr = %v, want %s: node.example.test", got.PublicNet.IPv6.DNSPtr, host)
	}
	if _, _, err := client.Server.ChangeDNSPtr(ctx, server, "2001:db8:ffff::1", ptr("x.example.test")); !hcloud.IsError(err, hcloud.ErrorCodeInvalidInput) {
		t.Errorf("change_dns_ptr outside the server's /64: %v, want invalid_input", err)
	}

	v4only := ok(client.Server.Create(ctx, hcloud.ServerCreateOpts{
		Name: unique("srv-v4"), ServerType: &hcloud.ServerType{Name: "sc-small"}, Image: &hcloud.Image{Name: "debian-13"},
		Location: &hcloud.Location{Name: "sim-1"}, PublicNet: &hcloud.ServerCreatePublicNet{EnableIPv4: true, EnableIPv6: false},
	})).Get(t)
	wait(t, client, v4only.Action)
	t.Cleanup(func() { _, _, _ = client.Server.DeleteWithResult(context.Background(), v4only.Server) })
	if s := ok(client.Server.GetByID(ctx, v4only.Server.ID)).Get(t); !s.PublicNet.IPv6.IsUnspecified() || s.PublicNet.IPv4.IsUnspecified() {
		t.Errorf("created with enable_ipv6 false: public_net %+v", s.PublicNet)
	}
}
