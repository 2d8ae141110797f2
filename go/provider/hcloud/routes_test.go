package hcloud

import (
	"context"
	"net"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	cloudprovider "k8s.io/cloud-provider"
)

// TestRoutes runs on a network in the persona's presented block (10.0.0.0/16, ADR 0013: the API shows the
// nodes' addresses there, and takes the gateways sent there back to loopback) and on one kept as given.
func TestRoutes(t *testing.T) {
	for _, c := range []struct{ name, cidr string }{
		{"presented block", "10.0.220.0/24"},
		{"range kept as given", "10.63.0.0/16"},
	} {
		t.Run(c.name, func(t *testing.T) { testRoutes(t, c.cidr) })
	}
}

func testRoutes(t *testing.T, cidr string) {
	ctx := context.Background()
	network := createNetwork(t, cidr)
	cloud := newTestCloud(t, map[string]string{EnvNetwork: network.Name})
	rc, ok := cloud.Routes()
	if !ok {
		t.Fatal("no Routes with a network configured")
	}
	a, b := createServer(t, unique("rt-a"), network), createServer(t, unique("rt-b"), network)
	ipA, ipB := a.PrivateNet[0].IP.String(), b.PrivateNet[0].IP.String()
	_, within, _ := net.ParseCIDR(cidr)
	if !within.Contains(a.PrivateNet[0].IP) || !within.Contains(b.PrivateNet[0].IP) {
		t.Fatalf("servers' addresses %s, %s, want them in %s", ipA, ipB, cidr)
	}
	route := func(target, cidr string) *cloudprovider.Route {
		return &cloudprovider.Route{TargetNode: types.NodeName(target), DestinationCIDR: cidr}
	}
	list := func() map[string]string {
		t.Helper()
		routes, err := rc.ListRoutes(ctx, "c")
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, r := range routes {
			target := string(r.TargetNode)
			if r.Blackhole {
				target = "blackhole"
			}
			out[r.DestinationCIDR] = target
		}
		return out
	}
	steps := []struct {
		name string
		do   func() error
		want map[string]string
	}{
		{name: "create a route per node", do: func() error {
			if err := rc.CreateRoute(ctx, "c", "uid-a", route(a.Name, "10.244.1.0/24")); err != nil {
				return err
			}
			return rc.CreateRoute(ctx, "c", "uid-b", route(b.Name, "10.244.2.0/24"))
		}, want: map[string]string{"10.244.1.0/24": a.Name, "10.244.2.0/24": b.Name}},
		{name: "creating again changes nothing", do: func() error { return rc.CreateRoute(ctx, "c", "uid-a", route(a.Name, "10.244.1.0/24")) },
			want: map[string]string{"10.244.1.0/24": a.Name, "10.244.2.0/24": b.Name}},
		{name: "a destination moving to another node replaces its gateway", do: func() error { return rc.CreateRoute(ctx, "c", "uid-b", route(b.Name, "10.244.1.0/24")) },
			want: map[string]string{"10.244.1.0/24": b.Name, "10.244.2.0/24": b.Name}},
		{name: "delete", do: func() error { return rc.DeleteRoute(ctx, "c", route(b.Name, "10.244.1.0/24")) }, want: map[string]string{"10.244.2.0/24": b.Name}},
		{name: "deleting a missing route is done", do: func() error { return rc.DeleteRoute(ctx, "c", route(b.Name, "10.244.9.0/24")) }, want: map[string]string{"10.244.2.0/24": b.Name}},
	}
	for _, step := range steps {
		if err := step.do(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		got := list()
		if len(got) != len(step.want) {
			t.Fatalf("%s: routes %v, want %v", step.name, got, step.want)
		}
		for cidr, target := range step.want {
			if got[cidr] != target {
				t.Errorf("%s: %s via %q, want %q (gateways: %s=%s, %s=%s)", step.name, cidr, got[cidr], target, a.Name, ipA, b.Name, ipB)
			}
		}
	}
	// A route whose gateway is no server's any more is a blackhole, which the route controller deletes.
	serverAction(t, b, api().Server.Poweroff)
	deleted, _, err := api().Server.DeleteWithResult(ctx, b)
	if err == nil {
		err = api().Action.WaitFor(ctx, deleted.Action)
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := list(); got["10.244.2.0/24"] != "blackhole" {
		t.Errorf("route of a deleted server: %v", got)
	}
}

func TestIPv6RoutesAreRefused(t *testing.T) {
	network := createNetwork(t, "10.64.0.0/16")
	rc, _ := newTestCloud(t, map[string]string{EnvNetwork: network.Name}).Routes()
	err := rc.CreateRoute(context.Background(), "c", "x", &cloudprovider.Route{TargetNode: "n", DestinationCIDR: "fd00::/64",
		TargetNodeAddresses: []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: net.ParseIP("10.64.0.2").String()}}})
	if err == nil {
		t.Fatal("an IPv6 route was accepted")
	}
}
