package digitalocean

import (
	"context"
	"os"
	"testing"

	"github.com/digitalocean/godo"

	"ccm-sandbox/go/internal/providerkit"
	"ccm-sandbox/go/internal/simcloudtest"
)

// sim is one real simcloud process shared by this package's tests, reached through its DigitalOcean dialect only.
var sim *simcloudtest.Server

func TestMain(m *testing.M) { os.Exit(simcloudtest.Run(m, &sim)) }

func testConfig() Config { return Config{Token: sim.Token, URL: sim.URL + "/", Region: "sim-1"} }

func newTestCloud(t *testing.T) *providerkit.Cloud {
	return simcloudtest.Must(NewCloud(context.Background(), testConfig())).Get(t)
}

// api is a godo client of the test simcloud, for fixtures and for checking the end state.
func api(t *testing.T) *godo.Client { return simcloudtest.Must(NewClient(testConfig())).Get(t) }

func createDroplet(t *testing.T, name string) *godo.Droplet {
	t.Helper()
	d, _, err := api(t).Droplets.Create(context.Background(), &godo.DropletCreateRequest{
		Name: name, Region: "sim-1", Size: "sc-small", Image: godo.DropletCreateImage{Slug: "ubuntu-24.04"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = api(t).Droplets.Delete(context.Background(), d.ID) })
	return d
}
