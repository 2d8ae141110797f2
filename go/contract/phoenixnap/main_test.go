package phoenixnap

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/phoenixnap/go-sdk-bmc/bmcapi"
	"github.com/phoenixnap/go-sdk-bmc/ipapi"
	"github.com/phoenixnap/go-sdk-bmc/networkapi"
	"github.com/phoenixnap/go-sdk-bmc/tagapi"

	"ccm-sandbox/go/internal/providerkit/poll"
	"ccm-sandbox/go/internal/simcloudtest"
)

var sim *simcloudtest.Server

func TestMain(m *testing.M) { os.Exit(simcloudtest.Run(m, &sim)) }

// clients are the SDK clients with the sandbox's client credentials (a fresh token source each time).
func clients(t *testing.T) Clients {
	t.Helper()
	return NewClients(sim, Credentials(sim, ClientID(sim.Token), sim.Token))
}

func ctx(t *testing.T) context.Context { return simcloudtest.Context(t) }

// The SDKs' error types: each package has its own GenericOpenAPIError with its own Error model.
func bmcError(t *testing.T, err error) *bmcapi.GenericOpenAPIError {
	t.Helper()
	return simcloudtest.As[*bmcapi.GenericOpenAPIError](t, err)
}

func ipError(t *testing.T, err error) *ipapi.GenericOpenAPIError {
	t.Helper()
	return simcloudtest.As[*ipapi.GenericOpenAPIError](t, err)
}

func networkError(t *testing.T, err error) *networkapi.GenericOpenAPIError {
	t.Helper()
	return simcloudtest.As[*networkapi.GenericOpenAPIError](t, err)
}

func tagError(t *testing.T, err error) *tagapi.GenericOpenAPIError {
	t.Helper()
	return simcloudtest.As[*tagapi.GenericOpenAPIError](t, err)
}

// status is the HTTP status of a call that answered.
func status(t *testing.T, res *http.Response) int {
	t.Helper()
	if res == nil {
		t.Fatal("no HTTP response")
	}
	return res.StatusCode
}

var cidrs atomic.Int32

// createNetwork makes a private network (a /24 no other test uses) and deletes it when the test ends.
func createNetwork(t *testing.T, c Clients) networkapi.PrivateNetwork {
	t.Helper()
	cidr := fmt.Sprintf("10.%d.%d.0/24", 90+cidrs.Load()/250, cidrs.Add(1)%250)
	n, _, err := c.Network.PrivateNetworksApi.PrivateNetworksPost(ctx(t)).
		PrivateNetworkCreate(networkapi.PrivateNetworkCreate{Name: simcloudtest.UniqueName("pn"), Location: "sim-1", Cidr: cidr}).Execute()
	if err != nil {
		t.Fatalf("create private network: %v", err)
	}
	t.Cleanup(func() {
		poll.Eventually(t, "private network "+n.Id+" deleted", func() error {
			res, err := c.Network.PrivateNetworksApi.PrivateNetworksNetworkIdDelete(context.Background(), n.Id).Execute()
			if res != nil && res.StatusCode == http.StatusNotFound {
				return nil
			}
			return err
		})
	})
	return *n
}

// createServer makes a server through the BMC API on network net (when not empty), deprovisioned when the
// test ends, and waits until it is powered on.
func createServer(t *testing.T, c Clients, net string, tags ...bmcapi.TagAssignmentRequest) bmcapi.Server {
	t.Helper()
	req := bmcapi.ServerCreate{Hostname: simcloudtest.UniqueName("bmc"), Os: "ubuntu-24.04", Type: "sc-small", Location: "sim-1", Tags: tags}
	if net != "" {
		kind := "USER_DEFINED"
		req.NetworkConfiguration = &bmcapi.NetworkConfiguration{PrivateNetworkConfiguration: &bmcapi.PrivateNetworkConfiguration{
			ConfigurationType: &kind, PrivateNetworks: []bmcapi.ServerPrivateNetwork{{Id: net}},
		}}
	}
	s, _, err := c.BMC.ServersApi.ServersPost(ctx(t)).ServerCreate(req).Execute()
	if err != nil {
		t.Fatalf("create server: %v", err)
	}
	t.Cleanup(func() { deprovision(t, c, s.Id) })
	return waitServer(t, c, s.Id, "powered-on")
}

// deprovision removes a server and waits until it is gone: 403, as phoenixNAP answers a deleted server.
func deprovision(t *testing.T, c Clients, id string) {
	t.Helper()
	poll.Eventually(t, "server "+id+" gone", func() error {
		_, res, err := c.BMC.ServersApi.ServersServerIdGet(context.Background(), id).Execute()
		if res != nil && res.StatusCode == http.StatusForbidden {
			return nil
		}
		if err == nil {
			_, _, err = c.BMC.ServersApi.ServersServerIdActionsDeprovisionPost(context.Background(), id).RelinquishIpBlock(bmcapi.RelinquishIpBlock{}).Execute()
		}
		return fmt.Errorf("still there (%v)", err)
	})
}

// waitServer polls a server until it has status.
func waitServer(t *testing.T, c Clients, id, want string) bmcapi.Server {
	t.Helper()
	var s *bmcapi.Server
	poll.Eventually(t, fmt.Sprintf("server %s %s", id, want), func() error {
		var err error
		if s, _, err = c.BMC.ServersApi.ServersServerIdGet(ctx(t), id).Execute(); err != nil {
			return err
		}
		if s.Status != want {
			return fmt.Errorf("status %s", s.Status)
		}
		return nil
	})
	return *s
}

// createBlock makes an IP block through the IP API and deletes it when the test ends.
func createBlock(t *testing.T, c Clients, size string, tags ...ipapi.TagAssignmentRequest) ipapi.IpBlock {
	t.Helper()
	b, _, err := c.IP.IPBlocksApi.IpBlocksPost(ctx(t)).IpBlockCreate(ipapi.IpBlockCreate{Location: "sim-1", CidrBlockSize: size, Tags: tags}).Execute()
	if err != nil {
		t.Fatalf("create IP block: %v", err)
	}
	t.Cleanup(func() { _, _, _ = c.IP.IPBlocksApi.IpBlocksIpBlockIdDelete(context.Background(), b.Id).Execute() })
	return *b
}

func ptr[T any](v T) *T { return &v }

// simID is the simcloud id behind a persona id: a1 and the store number in 22 digits.
func simID(prefix, id string) string {
	n, err := strconv.Atoi(strings.TrimLeft(strings.TrimPrefix(id, "a1"), "0"))
	if err != nil || len(id) != 24 {
		panic(fmt.Sprintf("not a persona id: %q", id))
	}
	return fmt.Sprintf("%s-%08d", prefix, n)
}

// waitIdle polls until the server has no action running (simcloud's lock, through /v1) and shows cond.
func waitIdle(t *testing.T, c Clients, id string, cond func(bmcapi.Server) bool) bmcapi.Server {
	t.Helper()
	var s *bmcapi.Server
	poll.Eventually(t, "server "+id+" idle", func() error {
		var v1 struct{ Server struct{ Locked bool } }
		sim.Do(t, "GET", "/v1/servers/"+simID("srv", id), nil, &v1)
		var err error
		if s, _, err = c.BMC.ServersApi.ServersServerIdGet(ctx(t), id).Execute(); err != nil {
			return err
		}
		if v1.Server.Locked || !cond(*s) {
			return fmt.Errorf("locked %v, status %s", v1.Server.Locked, s.Status)
		}
		return nil
	})
	return *s
}
