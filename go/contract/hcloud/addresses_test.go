package hcloud

import (
	"fmt"
	"net"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"ccm-sandbox/go/internal/simcloudtest"
)

func simcloudID(prefix string, n int64) string { return fmt.Sprintf("%s-%08d", prefix, n) }

// What hcloud-go reads of a network, a server and a load balancer is in 10.0.0.0/16; what it sends in that
// block (a route's gateway, an IP target) reaches the store as loopback, and is shown back as sent.
func TestPrivateAddressesArePresentedInTenZeroAndTakenBack(t *testing.T) {
	client := NewClient(sim)
	ctx := testContext(t)
	network := newNetwork(t, client, "10.0.200.0/24")
	server := newServer(t, client, nil, network)
	if len(server.PrivateNet) != 1 {
		t.Fatalf("private net = %+v", server.PrivateNet)
	}
	gateway := server.PrivateNet[0].IP
	route := hcloud.NetworkRoute{Destination: cidr(t, "10.244.5.0/24"), Gateway: gateway}
	wait(t, client, ok(client.Network.AddRoute(ctx, network, hcloud.NetworkAddRouteOpts{Route: route})).Get(t))
	lb := newLoadBalancer(t, client, hcloud.LoadBalancerCreateOpts{
		Network: network,
		Targets: []hcloud.LoadBalancerCreateOptsTarget{{Type: hcloud.LoadBalancerTargetTypeServer, Server: hcloud.LoadBalancerCreateOptsTargetServer{Server: server}, UsePrivateIP: ptr(true)}},
	})
	wait(t, client, ok(client.LoadBalancer.AddIPTarget(ctx, lb, hcloud.LoadBalancerAddIPTargetOpts{IP: net.ParseIP("10.0.200.99")})).Get(t))
	seen := ok(client.Network.GetByID(ctx, network.ID)).Get(t)
	seenLB := ok(client.LoadBalancer.GetByID(ctx, lb.ID)).Get(t)

	var storedNetwork struct {
		Network struct {
			IPRange string `json:"ip_range"`
			Subnets []struct {
				IPRange string `json:"ip_range"`
			} `json:"subnets"`
		} `json:"network"`
	}
	sim.Do(t, "GET", "/v1/networks/"+simcloudID("net", network.ID), nil, &storedNetwork)
	stored := storedNetwork.Network
	var storedRoutes struct {
		Routes []struct{ Destination, Gateway string } `json:"routes"`
	}
	sim.Do(t, "GET", "/v1/networks/"+simcloudID("net", network.ID)+"/routes", nil, &storedRoutes)
	var serverBody struct {
		Server struct {
			PrivateNetworks []struct{ IP string } `json:"private_networks"`
		} `json:"server"`
	}
	sim.Do(t, "GET", "/v1/servers/"+simcloudID("srv", server.ID), nil, &serverBody)
	storedServer := serverBody.Server
	var lbBody struct {
		LoadBalancer struct {
			PrivateIPv4 string                      `json:"private_ipv4"`
			Targets     []struct{ Kind, IP string } `json:"targets"`
		} `json:"load_balancer"`
	}
	sim.Do(t, "GET", "/v1/load_balancers/"+simcloudID("lb", lb.ID), nil, &lbBody)
	storedLB := lbBody.LoadBalancer
	if len(seen.Subnets) != 1 || len(seen.Routes) != 1 || len(stored.Subnets) != 1 || len(storedRoutes.Routes) != 1 || len(storedServer.PrivateNetworks) != 1 ||
		len(seenLB.PrivateNet) != 1 || len(storedLB.Targets) != 2 {
		t.Fatalf("network %+v (stored %+v, routes %+v), server %+v, load balancer %+v (stored %+v)", seen, stored, storedRoutes, storedServer, seenLB, storedLB)
	}
	ipTarget := ""
	for _, target := range storedLB.Targets {
		if target.Kind == "ip" {
			ipTarget = target.IP
		}
	}

	for _, c := range []struct {
		what              string
		presented, stored string
	}{
		{"network ip_range", seen.IPRange.String(), stored.IPRange},
		{"subnet ip_range", seen.Subnets[0].IPRange.String(), stored.Subnets[0].IPRange},
		{"server private_net ip", gateway.String(), storedServer.PrivateNetworks[0].IP},
		{"route gateway", seen.Routes[0].Gateway.String(), storedRoutes.Routes[0].Gateway},
		{"load balancer private_net ip", seenLB.PrivateNet[0].IP.String(), storedLB.PrivateIPv4},
		{"ip target", "10.0.200.99", ipTarget},
	} {
		t.Run(c.what, func(t *testing.T) {
			p, s := c.presented, c.stored
			if ip, n, err := net.ParseCIDR(p); err == nil {
				p, s = ip.String(), s[:len(s)-len("/24")]
				if ones, _ := n.Mask.Size(); ones != 24 || p != "10.0.200.0" {
					t.Errorf("%s is shown as %s, want 10.0.200.0/24", c.what, c.presented)
				}
			}
			if !simcloudtest.PresentedAs("10.0.0.0/16", p, s) {
				t.Errorf("%s is shown as %s and stored as %s, want 10.0.a.b over 127.X.a.b", c.what, c.presented, c.stored)
			}
		})
	}
	if seen.Routes[0].Destination.String() != "10.244.5.0/24" || storedRoutes.Routes[0].Destination != "10.244.5.0/24" {
		t.Errorf("route destination shown %s, stored %s, want the pod CIDR as sent", seen.Routes[0].Destination, storedRoutes.Routes[0].Destination)
	}
	found := false
	for _, target := range seenLB.Targets {
		found = found || (target.Type == hcloud.LoadBalancerTargetTypeIP && target.IP != nil && target.IP.IP == "10.0.200.99")
	}
	if !found {
		t.Errorf("targets = %+v, want the IP target 10.0.200.99 as sent", seenLB.Targets)
	}

	// Hetzner's CCM deletes by what it reads: the presented gateway, the presented target address.
	wait(t, client, ok(client.Network.DeleteRoute(ctx, network, hcloud.NetworkDeleteRouteOpts{Route: seen.Routes[0]})).Get(t))
	wait(t, client, ok(client.LoadBalancer.RemoveIPTarget(ctx, lb, net.ParseIP("10.0.200.99"))).Get(t))
	if got := ok(client.Network.GetByID(ctx, network.ID)).Get(t); len(got.Routes) != 0 {
		t.Errorf("routes after delete_route = %+v", got.Routes)
	}
	if got := ok(client.LoadBalancer.GetByID(ctx, lb.ID)).Get(t); len(got.Targets) != 1 {
		t.Errorf("targets after remove_target = %+v", got.Targets)
	}
}
