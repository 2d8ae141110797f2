package linode

import (
	"context"
	"os"
	"testing"

	"github.com/linode/linodego/v2"

	"ccm-sandbox/go/internal/providerkit"
	"ccm-sandbox/go/internal/simcloudtest"
)

// sim is one real simcloud process shared by this package's tests, reached through its Linode dialect only.
var sim *simcloudtest.Server

func TestMain(m *testing.M) { os.Exit(simcloudtest.Run(m, &sim)) }

func testConfig() Config { return Config{Token: sim.Token, URL: sim.URL + "/v4", Region: "sim-1"} }

func newTestCloud(t *testing.T) *providerkit.Cloud {
	return simcloudtest.Must(NewCloud(context.Background(), testConfig())).Get(t)
}

// api is a linodego client of the test simcloud, for fixtures and for checking the end state.
func api(t *testing.T) *linodego.Client { return simcloudtest.Must(NewClient(testConfig())).Get(t) }

func createInstance(t *testing.T, label string) *linodego.Instance {
	t.Helper()
	in := simcloudtest.Must(api(t).CreateInstance(context.Background(), linodego.InstanceCreateOptions{Region: "sim-1", Type: "sc-small", Label: label})).Get(t)
	t.Cleanup(func() { _ = api(t).DeleteInstance(context.Background(), in.ID) })
	return in
}
