package hcloud

import (
	"context"
	"net"
	"os"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"ccm-sandbox/go/internal/providerkit"
	"ccm-sandbox/go/internal/providerkit/providertest"
	"ccm-sandbox/go/internal/simcloudtest"
)

// sim is one real simcloud process shared by this package's tests; each test uses names of its own and
// reaches it through the Hetzner dialect only.
var sim *simcloudtest.Server

func TestMain(m *testing.M) { os.Exit(simcloudtest.Run(m, &sim)) }

const dialectPath = "/hcloud/v1"

// unique returns a name no other test of this run uses.
var unique = simcloudtest.UniqueName

// api is an hcloud-go client of the test simcloud's Hetzner dialect, for fixtures and for checking the
// end state: what a Hetzner user would see.
func api() *hcloud.Client {
	return hcloud.NewClient(
		hcloud.WithEndpoint(sim.URL+dialectPath), hcloud.WithToken(sim.Token), hcloud.WithApplication("ccm-sandbox-provider-test", ""),
		hcloud.WithPollOpts(hcloud.PollOpts{BackoffFunc: hcloud.ConstantBackoff(25 * time.Millisecond)}),
	)
}

// newTestCloud is the provider against the test simcloud, configured by the given HCLOUD_* variables on
// top of the endpoint, the token and a load balancer location.
func newTestCloud(t *testing.T, vars map[string]string) *providerkit.Cloud {
	t.Helper()
	base := map[string]string{EnvEndpoint: sim.URL + dialectPath, EnvToken: sim.Token, EnvLBLocation: "sim-1"}
	cfg := simcloudtest.Must(LoadConfig(providertest.Env(base, vars))).Get(t)
	return simcloudtest.Must(NewCloud(context.Background(), cfg)).Get(t)
}

// createNetwork makes a network with one subnet in sim-1 and returns it.
func createNetwork(t *testing.T, cidr string) *hcloud.Network {
	t.Helper()
	_, ipRange, err := net.ParseCIDR(cidr)
	if err != nil {
		t.Fatal(err)
	}
	network, _, err := api().Network.Create(context.Background(), hcloud.NetworkCreateOpts{
		Name: unique("net"), IPRange: ipRange,
		Subnets: []hcloud.NetworkSubnet{{Type: hcloud.NetworkSubnetTypeCloud, NetworkZone: "sim-1", IPRange: ipRange}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return network
}

// createServer makes a running server (attached to network when given) and returns it as the API shows it.
func createServer(t *testing.T, name string, network *hcloud.Network) *hcloud.Server {
	t.Helper()
	ctx := context.Background()
	opts := hcloud.ServerCreateOpts{
		Name: name, ServerType: &hcloud.ServerType{Name: "sc-small"}, Image: &hcloud.Image{Name: "ubuntu-24.04"}, Location: &hcloud.Location{Name: "sim-1"},
	}
	if network != nil {
		opts.Networks = []*hcloud.Network{network}
	}
	result, _, err := api().Server.Create(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := api().Action.WaitFor(ctx, result.Action); err != nil {
		t.Fatal(err)
	}
	server, _, err := api().Server.GetByID(ctx, result.Server.ID)
	if err != nil || server == nil {
		t.Fatalf("server %d: %v", result.Server.ID, err)
	}
	return server
}

// serverAction runs a power action and waits for it.
func serverAction(t *testing.T, server *hcloud.Server, do func(context.Context, *hcloud.Server) (*hcloud.Action, *hcloud.Response, error)) {
	t.Helper()
	action, _, err := do(context.Background(), server)
	if err == nil {
		err = api().Action.WaitFor(context.Background(), action)
	}
	if err != nil {
		t.Fatal(err)
	}
}
