package hcloud

import (
	"context"
	"net"
	"os"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"ccm-sandbox/go/internal/simcloudtest"
)

// sim is one real simcloud process shared by this package's tests; each test uses names of its own.
var sim *simcloudtest.Server

func TestMain(m *testing.M) { os.Exit(simcloudtest.Run(m, &sim)) }

// unique returns a name no other test of this run uses.
func unique(prefix string) string { return simcloudtest.UniqueName(prefix) }

func testContext(t *testing.T) context.Context { return simcloudtest.Context(t) }

// ok holds what an hcloud-go call returned: ok(client.X.Get(...)).Get(t) fails the test on an error.
func ok[T any](v T, _ *hcloud.Response, err error) simcloudtest.Result[T] {
	return simcloudtest.Must(v, err)
}

// all is ok for the All/AllWithOpts calls, which return no response.
func all[T any](v []T, err error) simcloudtest.Result[[]T] { return simcloudtest.Must(v, err) }

// wait waits for actions through hcloud-go's own poller and fails the test when one ends in error.
func wait(t *testing.T, client *hcloud.Client, actions ...*hcloud.Action) {
	t.Helper()
	if err := client.Action.WaitFor(testContext(t), actions...); err != nil {
		t.Fatalf("waiting for actions: %v", err)
	}
}

func cidr(t *testing.T, s string) *net.IPNet {
	t.Helper()
	_, n, err := net.ParseCIDR(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// newNetwork creates a network with one subnet in location sim-1's network zone and deletes it at the end.
func newNetwork(t *testing.T, client *hcloud.Client, ipRange string) *hcloud.Network {
	t.Helper()
	ctx := testContext(t)
	network := ok(client.Network.Create(ctx, hcloud.NetworkCreateOpts{
		Name: unique("net"), IPRange: cidr(t, ipRange),
		Subnets: []hcloud.NetworkSubnet{{Type: hcloud.NetworkSubnetTypeCloud, IPRange: cidr(t, ipRange), NetworkZone: "sim-1"}},
	})).Get(t)
	t.Cleanup(func() { _, _ = client.Network.Delete(context.Background(), network) })
	return network
}

// newServer creates a running server in sim-1 and deletes it when the test ends.
func newServer(t *testing.T, client *hcloud.Client, labels map[string]string, networks ...*hcloud.Network) *hcloud.Server {
	t.Helper()
	ctx := testContext(t)
	result := ok(client.Server.Create(ctx, hcloud.ServerCreateOpts{
		Name: unique("srv"), ServerType: &hcloud.ServerType{Name: "sc-small"}, Image: &hcloud.Image{Name: "debian-13"},
		Location: &hcloud.Location{Name: "sim-1"}, Labels: labels, Networks: networks,
	})).Get(t)
	wait(t, client, result.Action)
	t.Cleanup(func() {
		if res, _, err := client.Server.DeleteWithResult(context.Background(), result.Server); err == nil {
			_ = client.Action.WaitFor(context.Background(), res.Action)
		}
	})
	return ok(client.Server.GetByID(ctx, result.Server.ID)).Get(t)
}
