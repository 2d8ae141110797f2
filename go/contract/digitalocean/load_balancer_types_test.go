package digitalocean

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/digitalocean/godo"

	"ccm-sandbox/go/internal/simcloudtest"
)

// networkLBRequest is a load balancer request as DigitalOcean's CCM builds one by default: REGIONAL_NETWORK,
// IPV4 (its nodes have no IPv6), each Service port forwarded to the same port on the nodes, checked on
// kube-proxy's health port.
func networkLBRequest(name string) *godo.LoadBalancerRequest {
	return &godo.LoadBalancerRequest{
		Name: name, Region: "sim-1", Type: "REGIONAL_NETWORK", NetworkStack: "IPV4", Algorithm: "round_robin",
		ForwardingRules: []godo.ForwardingRule{{EntryProtocol: "tcp", EntryPort: 80, TargetProtocol: "tcp", TargetPort: 80}},
		HealthCheck: &godo.HealthCheck{
			Protocol: "http", Port: 10256, Path: "/healthz", CheckIntervalSeconds: 3, ResponseTimeoutSeconds: 5, HealthyThreshold: 5,
			UnhealthyThreshold: 3, ProxyProtocol: ptr(false),
		},
		StickySessions: &godo.StickySessions{Type: "none"}, DisableLetsEncryptDNSRecords: ptr(false), Firewall: &godo.LBFirewall{},
	}
}

// DigitalOcean's CCM writes the type it reads (lb.Type) into the Service's type annotation and builds every
// update from it, sending network_stack DUALSTACK for REGIONAL. A view that always said REGIONAL turned each
// update of a REGIONAL_NETWORK load balancer into a 422: the type must round-trip.
func TestTheTypeAndNetworkStackRoundTripAsTheCCMEchoesThem(t *testing.T) {
	c := client(t)
	created := createLB(t, networkLBRequest(simcloudtest.UniqueName("do-nlb")))
	if created.Type != "REGIONAL_NETWORK" || created.NetworkStack != "IPV4" {
		t.Fatalf("created: type %q stack %q", created.Type, created.NetworkStack)
	}
	got := waitActive(t, created.ID)
	if got.Type != "REGIONAL_NETWORK" || got.NetworkStack != "IPV4" || got.IPv6 != "" {
		t.Fatalf("read: type %q stack %q ipv6 %q", got.Type, got.NetworkStack, got.IPv6)
	}
	if r := got.ForwardingRules; len(r) != 1 || r[0].TargetPort != 80 || got.HealthCheck.Port != 10256 || got.HealthCheck.Path != "/healthz" {
		t.Fatalf("rules %+v health check %+v", r, got.HealthCheck)
	}
	// The CCM's next update: the type as read, the stack it derives for it.
	echo := networkLBRequest(got.Name)
	echo.Type, echo.ForwardingRules = got.Type, append(echo.ForwardingRules, godo.ForwardingRule{EntryProtocol: "tcp", EntryPort: 443, TargetProtocol: "tcp", TargetPort: 443})
	updated, _, err := c.LoadBalancers.Update(ctx(t), got.ID, echo)
	if err != nil || updated.Type != "REGIONAL_NETWORK" || len(updated.ForwardingRules) != 2 {
		t.Fatalf("update with the echoed type: %+v, %v", updated, err)
	}
	// Type and network stack are fixed at creation.
	regional := networkLBRequest(got.Name)
	regional.Type, regional.NetworkStack = "REGIONAL", "DUALSTACK"
	_, _, err = c.LoadBalancers.Update(ctx(t), got.ID, regional)
	if e := apiError(t, err); e.Response.StatusCode != http.StatusUnprocessableEntity || !strings.HasPrefix(e.Message, "type: cannot be changed") {
		t.Fatalf("changing the type: %d %q", e.Response.StatusCode, e.Message)
	}
}

// DigitalOcean's defaults when a request names neither: REGIONAL and IPV4; a network load balancer forwards
// tcp (and udp), not http.
func TestALoadBalancerIsRegionalAndIPv4UnlessToldAndANetworkOneForwardsNoHTTP(t *testing.T) {
	plain := createLB(t, lbRequest(simcloudtest.UniqueName("do-lb-plain")))
	if plain.Type != "REGIONAL" || plain.NetworkStack != "IPV4" {
		t.Fatalf("type %q stack %q", plain.Type, plain.NetworkStack)
	}
	req := networkLBRequest(simcloudtest.UniqueName("do-nlb-http"))
	req.ForwardingRules[0].EntryProtocol, req.ForwardingRules[0].TargetProtocol = "http", "http"
	_, _, err := client(t).LoadBalancers.Create(ctx(t), req)
	if e := apiError(t, err); e.Response.StatusCode != http.StatusUnprocessableEntity || !strings.HasPrefix(e.Message, "forwarding_rules.0.entry_protocol") {
		t.Fatalf("http on REGIONAL_NETWORK: %d %q", e.Response.StatusCode, e.Message)
	}
}

// DigitalOcean's CCM defaults a REGIONAL load balancer to DUALSTACK and writes lb.IPv6 into the Service's
// status beside lb.IP: a DUALSTACK load balancer has a valid IPv6 address once active (one no one routes).
func TestADualStackLoadBalancerHasAnIPv6AddressOnceActive(t *testing.T) {
	req := lbRequest(simcloudtest.UniqueName("do-lb-dual"))
	req.Type, req.NetworkStack = "REGIONAL", "DUALSTACK"
	created := createLB(t, req)
	if created.IPv6 != "" {
		t.Fatalf("ipv6 %q while new", created.IPv6)
	}
	got := waitActive(t, created.ID)
	ip, err := netip.ParseAddr(got.IPv6)
	if err != nil || !ip.Is6() || !netip.MustParsePrefix("2001:db8::/32").Contains(ip) || got.NetworkStack != "DUALSTACK" {
		t.Fatalf("ipv6 %q stack %q", got.IPv6, got.NetworkStack)
	}
}
