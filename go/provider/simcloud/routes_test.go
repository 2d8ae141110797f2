package simcloud

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	cloudprovider "k8s.io/cloud-provider"

	"ccm-sandbox/go/internal/simcloudtest"
)

func TestRoutesLifecycle(t *testing.T) {
	network := unique("net")
	networkID := sim.CreateNetwork(t, network)
	cloud := newTestCloud(t, network)
	routes, ok := cloud.Routes()
	if !ok {
		t.Fatal("no Routes capability with a network configured")
	}
	ctx := context.Background()
	server := sim.CreateServer(t, unique("rt"), simcloudtest.ServerOpts{Networks: []string{networkID}})
	gateway := server["private_networks"].([]any)[0].(map[string]any)["ip"].(string)
	want := &cloudprovider.Route{TargetNode: types.NodeName(server["name"].(string)), DestinationCIDR: "10.244.3.0/24"}

	if err := routes.CreateRoute(ctx, "test-cluster", "node-uid-1", want); err != nil {
		t.Fatal(err)
	}
	if err := routes.CreateRoute(ctx, "test-cluster", "node-uid-1", want); err != nil {
		t.Fatalf("a second CreateRoute of the same route: %v", err)
	}
	list, err := routes.ListRoutes(ctx, "test-cluster")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Name != "node-uid-1" || list[0].TargetNode != want.TargetNode || list[0].DestinationCIDR != want.DestinationCIDR || list[0].Blackhole {
		t.Fatalf("routes %+v", list)
	}
	var net struct {
		Network struct {
			Routes []struct{ Gateway string } `json:"routes"`
		} `json:"network"`
	}
	sim.Do(t, "GET", "/v1/networks/"+networkID, nil, &net)
	if net.Network.Routes[0].Gateway != gateway {
		t.Errorf("gateway %s, want the node's private IP %s", net.Network.Routes[0].Gateway, gateway)
	}

	sim.DeleteServer(t, server["id"].(string))
	list, err = routes.ListRoutes(ctx, "test-cluster")
	if err != nil || len(list) != 1 || !list[0].Blackhole {
		t.Fatalf("after the server is gone: routes %+v, err %v; want one blackhole", list, err)
	}
	if err := routes.DeleteRoute(ctx, "test-cluster", list[0]); err != nil {
		t.Fatal(err)
	}
	if list, _ := routes.ListRoutes(ctx, "test-cluster"); len(list) != 0 {
		t.Errorf("routes after DeleteRoute %+v", list)
	}
}

func TestNoRoutesWithoutANetwork(t *testing.T) {
	if _, ok := newTestCloud(t, "").Routes(); ok {
		t.Error("Routes offered without SIMCLOUD_NETWORK")
	}
}
