package brightbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/big"
	"os"
	"strconv"
	"strings"
	"testing"

	brightbox "github.com/brightbox/gobrightbox/v2"

	"ccm-sandbox/go/internal/providerkit"
	"ccm-sandbox/go/internal/providerkit/poll"
	"ccm-sandbox/go/internal/providerkit/providertest"
	"ccm-sandbox/go/internal/simcloudtest"
)

// sim is one real simcloud process shared by this package's tests, reached through its Brightbox persona (and,
// to power servers off, which Brightbox's API as the persona serves it cannot, through /v1).
var sim *simcloudtest.Server

func TestMain(m *testing.M) { os.Exit(simcloudtest.Run(m, &sim)) }

// testConfig has the sandbox's API client: the project token is the secret, the persona derives the id from it.
func testConfig() Config {
	sum := sha256.Sum256([]byte("brightbox-client:" + sim.Token))
	n, _ := new(big.Int).SetString(hex.EncodeToString(sum[:])[:12], 16)
	return Config{APIURL: sim.URL + "/brightbox/", ClientID: "cli-" + n.Text(36)[:5], ClientSecret: sim.Token}
}

func newTestCloud(t *testing.T) *providerkit.Cloud {
	return simcloudtest.Must(NewCloud(context.Background(), testConfig())).Get(t)
}

func api(t *testing.T) *brightbox.Client { return simcloudtest.Must(NewClient(testConfig())).Get(t) }

// createServer makes a server through Brightbox's API and returns once it is active; it is destroyed when the
// test ends.
func createServer(t *testing.T, name string) *brightbox.Server {
	t.Helper()
	s := simcloudtest.Must(api(t).CreateServer(context.Background(), brightbox.ServerOptions{Name: &name, Image: ptr("img-00001"), ServerType: ptr("sc-small")})).Get(t)
	t.Cleanup(func() { destroy(t, s.ID) })
	poll.Eventually(t, "server "+name+" active", func() error { return statusIs(t, s.ID, "active") })
	return simcloudtest.Must(api(t).Server(context.Background(), s.ID)).Get(t)
}

func statusIs(t *testing.T, id, want string) error {
	s, err := api(t).Server(context.Background(), id)
	if err == nil && s.Status.String() != want {
		return fmt.Errorf("status %s, want %s", s.Status, want)
	}
	return err
}

// destroy destroys the server and waits until the API answers 404 for it.
func destroy(t *testing.T, id string) {
	t.Helper()
	poll.Eventually(t, "server "+id+" gone", func() error {
		_, err := api(t).Server(context.Background(), id)
		if isNotFound(err) {
			return nil
		}
		if err == nil {
			_, err = api(t).DestroyServer(context.Background(), id)
		}
		return fmt.Errorf("still there (%v)", err)
	})
}

// simID is simcloud's id of a Brightbox server id: the same store number, in decimal.
func simID(t *testing.T, id string) string {
	n, err := strconv.ParseInt(strings.TrimPrefix(id, "srv-"), 36, 64)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("srv-%08d", n)
}

func TestInstancesFollowTheContract(t *testing.T) {
	instances, _ := newTestCloud(t).InstancesV2()
	providertest.Instances(t, instances, func(t *testing.T) providertest.Machine {
		s := createServer(t, simcloudtest.UniqueName("bb-node"))
		return providertest.Machine{
			Name: s.Name, ProviderID: ProviderID(s.ID),
			PowerOff: func(t *testing.T) {
				sim.ServerAction(t, simID(t, s.ID), "poweroff")
				poll.Eventually(t, "inactive", func() error { return statusIs(t, s.ID, "inactive") })
			},
			Delete: func(t *testing.T) { destroy(t, s.ID) },
		}
	})
}

// What Brightbox's CCM writes on a Node: brightbox://<id>, the type's handle, the zone handle and its region,
// the names and every address as ExternalIP.
func TestInstanceMetadataIsBrightboxs(t *testing.T) {
	s := createServer(t, simcloudtest.UniqueName("bb-meta"))
	instances, _ := newTestCloud(t).InstancesV2()
	for _, node := range []struct{ name, providerID string }{{s.Name, ""}, {s.Name, ProviderID(s.ID)}, {s.ID, ""}} {
		md, err := instances.InstanceMetadata(context.Background(), providertest.Node(node.name, node.providerID))
		if err != nil {
			t.Fatalf("%+v: %v", node, err)
		}
		if md.ProviderID != "brightbox://"+s.ID || md.InstanceType != "sc-small" || md.Zone != "sim-1-a" || md.Region != "sim-1" {
			t.Errorf("%+v: metadata %+v", node, md)
		}
		kinds := map[string]int{}
		for _, a := range md.NodeAddresses {
			kinds[string(a.Type)]++
		}
		if kinds["InternalIP"] != 0 || kinds["ExternalIP"] < 1 || kinds["Hostname"] != 1 || kinds["ExternalDNS"] != 1 {
			t.Errorf("%+v: addresses %+v", node, md.NodeAddresses)
		}
	}
}
