package phoenixnap

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"testing"

	"github.com/phoenixnap/go-sdk-bmc/bmcapi"

	"ccm-sandbox/go/internal/providerkit"
	"ccm-sandbox/go/internal/providerkit/poll"
	"ccm-sandbox/go/internal/providerkit/providertest"
	"ccm-sandbox/go/internal/simcloudtest"
)

// sim is one real simcloud process shared by this package's tests, reached through its phoenixNAP persona (and,
// for the load balancers carrying the blocks' traffic, /v1).
var sim *simcloudtest.Server

func TestMain(m *testing.M) { os.Exit(simcloudtest.Run(m, &sim)) }

// testConfig has the sandbox's client credentials: the project token is the secret, the persona derives the id.
func testConfig() Config {
	sum := sha256.Sum256([]byte("phoenixnap-client:" + sim.Token))
	return Config{
		ClientID: "simcloud-" + hex.EncodeToString(sum[:])[:20], ClientSecret: sim.Token, Location: "sim-1",
		TokenURL: sim.URL + "/pnap/auth/realms/BMC/protocol/openid-connect/token", BMCURL: sim.URL + "/pnap/bmc/v1", IPURL: sim.URL + "/pnap/ips/v1",
		SimcloudEndpoint: sim.URL, SimcloudToken: sim.Token,
	}
}

func newTestCloud(t *testing.T) *providerkit.Cloud {
	return simcloudtest.Must(NewCloud(context.Background(), testConfig())).Get(t)
}

func api(t *testing.T) Clients { t.Helper(); return NewClients(testConfig()) }

// createServer makes a BMC server and returns once it is powered on; it is deprovisioned when the test ends.
func createServer(t *testing.T, name string) bmcapi.Server {
	t.Helper()
	s, _, err := api(t).BMC.ServersApi.ServersPost(context.Background()).ServerCreate(bmcapi.ServerCreate{Hostname: name, Os: "ubuntu-24.04", Type: "sc-small", Location: "sim-1"}).Execute()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gone(t, s.Id, true) })
	poll.Eventually(t, "server "+name+" powered on", func() error { return statusIs(t, s.Id, "powered-on") })
	return *s
}

func statusIs(t *testing.T, id, want string) error {
	s, _, err := api(t).BMC.ServersApi.ServersServerIdGet(context.Background(), id).Execute()
	if err == nil && s.Status != want {
		return fmt.Errorf("status %s, want %s", s.Status, want)
	}
	return err
}

// gone deprovisions the server (when deprovision) and waits until the BMC API answers 403 for it, as phoenixNAP
// answers a deleted server.
func gone(t *testing.T, id string, deprovision bool) {
	t.Helper()
	poll.Eventually(t, "server "+id+" gone", func() error {
		_, res, err := api(t).BMC.ServersApi.ServersServerIdGet(context.Background(), id).Execute()
		if res != nil && res.StatusCode == http.StatusForbidden {
			return nil
		}
		if err == nil && deprovision {
			_, _, err = api(t).BMC.ServersApi.ServersServerIdActionsDeprovisionPost(context.Background(), id).Execute()
		}
		return fmt.Errorf("still there (%v)", err)
	})
}

func TestInstancesFollowTheContract(t *testing.T) {
	instances, _ := newTestCloud(t).InstancesV2()
	providertest.Instances(t, instances, func(t *testing.T) providertest.Machine {
		s := createServer(t, simcloudtest.UniqueName("pnap-node"))
		return providertest.Machine{
			Name: s.Hostname, ProviderID: ProviderID(s.Id),
			PowerOff: func(t *testing.T) {
				if _, _, err := api(t).BMC.ServersApi.ServersServerIdActionsPowerOffPost(context.Background(), s.Id).Execute(); err != nil {
					t.Fatal(err)
				}
				poll.Eventually(t, "powered off", func() error { return statusIs(t, s.Id, "powered-off") })
			},
			Delete: func(t *testing.T) { gone(t, s.Id, true) },
		}
	})
}
