package digitalocean

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"ccm-sandbox/go/internal/providerkit"
	"ccm-sandbox/go/internal/providerkit/poll"
	"ccm-sandbox/go/internal/providerkit/providertest"
	"ccm-sandbox/go/internal/simcloudtest"
)

func TestProviderIDsRoundTrip(t *testing.T) {
	if id, err := ParseProviderID(ProviderID(42)); err != nil || id != 42 || ProviderID(42) != "digitalocean://42" {
		t.Errorf("ParseProviderID(%s) = %d, %v", ProviderID(42), id, err)
	}
}

func TestLoadConfigUsesDigitalOceansNamesAndAPI(t *testing.T) {
	cfg, err := LoadConfig(providerkit.Map(map[string]string{EnvToken: "t", EnvRegion: "sim-1"}))
	if err != nil || cfg.URL != "https://api.digitalocean.com/" {
		t.Errorf("LoadConfig = %+v, %v", cfg, err)
	}
	if _, err := LoadConfig(providerkit.Map(nil)); err == nil || !strings.HasPrefix(err.Error(), "digitalocean: LoadConfig: invalid configuration: DO_ACCESS_TOKEN is not set") {
		t.Errorf("err = %v", err)
	}
}

func TestAnUnknownRegionFailsAtStart(t *testing.T) {
	cfg := testConfig()
	cfg.Region = "nyc3"
	if _, err := NewCloud(context.Background(), cfg); err == nil {
		t.Fatal("REGION=nyc3 was accepted by a simcloud that has sim-1 and sim-2")
	}
}

// dropletStatus is the droplet's status as the API shows it, "gone" once it has none.
func dropletStatus(t *testing.T, id int) func() (string, error) {
	return func() (string, error) {
		d, _, err := api(t).Droplets.Get(context.Background(), id)
		if isNotFound(err) {
			return "gone", nil
		}
		if err != nil {
			return "", err
		}
		return d.Status, nil
	}
}

// settleAfter is settle after a call that returned err.
func settleAfter(t *testing.T, err error, id int, status string) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	settle(t, id, status)
}

func settle(t *testing.T, id int, status string) {
	t.Helper()
	poll.Eventually(t, fmt.Sprintf("droplet %d %s", id, status), func() error { return poll.Returns(status)(dropletStatus(t, id)()) })
}

func TestInstances(t *testing.T) {
	instances, _ := newTestCloud(t).InstancesV2()
	providertest.Instances(t, instances, func(t *testing.T) providertest.Machine {
		d := createDroplet(t, simcloudtest.UniqueName("do-inst"))
		settle(t, d.ID, "active")
		return providertest.Machine{
			Name: d.Name, ProviderID: ProviderID(d.ID),
			PowerOff: func(t *testing.T) {
				_, _, err := api(t).DropletActions.PowerOff(context.Background(), d.ID)
				settleAfter(t, err, d.ID, "off")
			},
			Delete: func(t *testing.T) {
				_, err := api(t).Droplets.Delete(context.Background(), d.ID)
				settleAfter(t, err, d.ID, "gone")
			},
		}
	})
}

func TestInstanceMetadataHasTheSizeRegionAndAddresses(t *testing.T) {
	d := createDroplet(t, simcloudtest.UniqueName("do-node"))
	settle(t, d.ID, "active")
	instances, _ := newTestCloud(t).InstancesV2()
	md, err := instances.InstanceMetadata(context.Background(), providertest.Node(d.Name, ""))
	if err != nil {
		t.Fatal(err)
	}
	if md.ProviderID != ProviderID(d.ID) || md.InstanceType != "sc-small" || md.Region != "sim-1" {
		t.Fatalf("metadata: %+v", md)
	}
	if md.NodeAddresses[0].Type != v1.NodeHostName || md.NodeAddresses[1].Type != v1.NodeInternalIP || md.NodeAddresses[2].Type != v1.NodeExternalIP {
		t.Errorf("addresses: %+v", md.NodeAddresses)
	}
}

// A droplet on a network has its private address as InternalIP, which the persona shows in 10.110.0.0/16 as
// DigitalOcean shows a VPC address (ADR 0013); one on none falls back to its public (loopback) address.
func TestTheInternalIPIsThePresentedPrivateAddress(t *testing.T) {
	for _, c := range []struct {
		name  string
		join  bool
		block string
	}{
		{"on a network", true, "10.110.0.0/16"},
		{"on none", false, "127.0.0.0/8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := createDroplet(t, simcloudtest.UniqueName("do-ip"))
			settle(t, d.ID, "active")
			if c.join {
				var out struct {
					Action struct {
						ID string `json:"id"`
					} `json:"action"`
				}
				body := map[string]any{"network_id": sim.CreateNetwork(t, simcloudtest.UniqueName("net"))}
				sim.Do(t, "POST", fmt.Sprintf("/v1/servers/srv-%08d/actions/attach_to_network", d.ID), body, &out)
				sim.WaitForAction(t, out.Action.ID)
			}
			instances, _ := newTestCloud(t).InstancesV2()
			md, err := instances.InstanceMetadata(context.Background(), providertest.Node(d.Name, ""))
			if err != nil {
				t.Fatal(err)
			}
			_, block, _ := net.ParseCIDR(c.block)
			var internal []string
			for _, a := range md.NodeAddresses {
				if a.Type == v1.NodeInternalIP {
					internal = append(internal, a.Address)
				}
			}
			if len(internal) != 1 || !block.Contains(net.ParseIP(internal[0])) {
				t.Errorf("InternalIPs %v, want one in %s", internal, c.block)
			}
		})
	}
}
