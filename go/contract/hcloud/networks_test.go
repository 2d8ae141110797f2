package hcloud

import (
	"net"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

func TestNetworkSubnetsAndRoutes(t *testing.T) {
	client := NewClient(sim)
	ctx := testContext(t)
	network := newNetwork(t, client, "10.41.0.0/16")
	server := newServer(t, client, nil, network)
	gateway := server.PrivateNet[0].IP

	got := ok(client.Network.GetByID(ctx, network.ID)).Get(t)
	if len(got.Subnets) != 1 || got.Subnets[0].NetworkZone != "sim-1" || got.Subnets[0].Type != hcloud.NetworkSubnetTypeCloud {
		t.Errorf("subnets = %+v", got.Subnets)
	}
	if len(got.Servers) != 1 || got.Servers[0].ID != server.ID {
		t.Errorf("servers = %+v, want [%d]", got.Servers, server.ID)
	}

	route := hcloud.NetworkRoute{Destination: cidr(t, "10.244.1.0/24"), Gateway: gateway}
	wait(t, client, ok(client.Network.AddRoute(ctx, network, hcloud.NetworkAddRouteOpts{Route: route})).Get(t))
	got = ok(client.Network.GetByID(ctx, network.ID)).Get(t)
	if len(got.Routes) != 1 || got.Routes[0].Destination.String() != "10.244.1.0/24" || !got.Routes[0].Gateway.Equal(gateway) {
		t.Fatalf("routes after add_route = %+v", got.Routes)
	}

	wait(t, client, ok(client.Network.DeleteRoute(ctx, network, hcloud.NetworkDeleteRouteOpts{Route: route})).Get(t))
	if got = ok(client.Network.GetByID(ctx, network.ID)).Get(t); len(got.Routes) != 0 {
		t.Errorf("routes after delete_route = %+v", got.Routes)
	}
	_, _, err := client.Network.DeleteRoute(ctx, network, hcloud.NetworkDeleteRouteOpts{Route: route})
	if !hcloud.IsError(err, hcloud.ErrorCodeNotFound) {
		t.Errorf("deleting a missing route: %v, want not_found", err)
	}
	_, _, err = client.Network.AddRoute(ctx, network, hcloud.NetworkAddRouteOpts{Route: hcloud.NetworkRoute{Destination: cidr(t, "10.244.2.0/24"), Gateway: net.ParseIP("192.0.2.1")}})
	if !hcloud.IsError(err, hcloud.ErrorCodeInvalidInput) {
		t.Errorf("a gateway outside the network: %v, want invalid_input", err)
	}
}

func TestServerAttachesToAndDetachesFromANetwork(t *testing.T) {
	client := NewClient(sim)
	ctx := testContext(t)
	network := newNetwork(t, client, "10.44.0.0/24")
	server := newServer(t, client, nil)
	wait(t, client, ok(client.Server.AttachToNetwork(ctx, server, hcloud.ServerAttachToNetworkOpts{Network: network, IP: net.ParseIP("10.44.0.77")})).Get(t))
	got := ok(client.Server.GetByID(ctx, server.ID)).Get(t)
	if len(got.PrivateNet) != 1 || !got.PrivateNet[0].IP.Equal(net.ParseIP("10.44.0.77")) {
		t.Errorf("private net after attach = %+v", got.PrivateNet)
	}
	action := ok(client.Server.DetachFromNetwork(ctx, server, hcloud.ServerDetachFromNetworkOpts{Network: network})).Get(t)
	wait(t, client, action)
	if got = ok(client.Server.GetByID(ctx, server.ID)).Get(t); len(got.PrivateNet) != 0 {
		t.Errorf("private net after detach = %+v", got.PrivateNet)
	}
	ofNetwork := all(client.Network.Action.AllFor(ctx, network, hcloud.ActionListOpts{})).Get(t)
	if len(ofNetwork) != 2 {
		t.Errorf("the network's actions = %d, want the attach and the detach", len(ofNetwork))
	}
}

func TestNetworkListUpdateAndNameUniqueness(t *testing.T) {
	client := NewClient(sim)
	ctx := testContext(t)
	network := newNetwork(t, client, "10.42.0.0/24")
	updated := ok(client.Network.Update(ctx, network, hcloud.NetworkUpdateOpts{Labels: map[string]string{"cluster": network.Name}})).Get(t)
	if updated.Labels["cluster"] != network.Name {
		t.Errorf("labels = %v", updated.Labels)
	}
	found := ok(client.Network.List(ctx, hcloud.NetworkListOpts{ListOpts: hcloud.ListOpts{LabelSelector: "cluster=" + network.Name}})).Get(t)
	if len(found) != 1 || found[0].ID != network.ID {
		t.Errorf("list by label = %+v", found)
	}
	_, _, err := client.Network.Create(ctx, hcloud.NetworkCreateOpts{Name: network.Name, IPRange: cidr(t, "10.43.0.0/24")})
	if !hcloud.IsError(err, hcloud.ErrorCodeUniquenessError) {
		t.Errorf("a second network named %s: %v, want uniqueness_error", network.Name, err)
	}
	if _, err := client.Network.Delete(ctx, network); err != nil {
		t.Fatal(err)
	}
	if gone := ok(client.Network.GetByID(ctx, network.ID)).Get(t); gone != nil {
		t.Errorf("network %d still there after delete", network.ID)
	}
}
