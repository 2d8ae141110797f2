package hcloud

import (
	"context"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"

	"ccm-sandbox/go/internal/providerkit/providertest"
	"ccm-sandbox/go/internal/simcloudtest"
)

var node = providertest.Node

func TestInstances(t *testing.T) {
	instances, _ := newTestCloud(t, nil).InstancesV2()
	c := api()
	providertest.Instances(t, instances, func(t *testing.T) providertest.Machine {
		server := createServer(t, unique("inst"), nil)
		return providertest.Machine{
			Name: server.Name, ProviderID: providerID(server.ID),
			PowerOff: func(t *testing.T) { serverAction(t, server, c.Server.Poweroff) },
			Delete: func(t *testing.T) {
				result, _, err := c.Server.DeleteWithResult(context.Background(), server)
				if err == nil {
					err = c.Action.WaitFor(context.Background(), result.Action)
				}
				if err != nil {
					t.Fatal(err)
				}
			},
		}
	})
}

func TestInstanceMetadataHasHetznersLabelAndAddressSemantics(t *testing.T) {
	network := createNetwork(t, "10.60.0.0/16")
	cloud := newTestCloud(t, map[string]string{EnvNetwork: network.Name})
	instances, _ := cloud.InstancesV2()
	server := createServer(t, unique("inst-md"), network)
	md, err := instances.InstanceMetadata(context.Background(), node(server.Name, ""))
	if err != nil {
		t.Fatal(err)
	}
	dcs, err := api().Datacenter.All(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := &cloudprovider.InstanceMetadata{
		ProviderID:   providerID(server.ID),
		InstanceType: "sc-small",
		Region:       "sim-1",
		Zone:         datacenterByLocation(dcs)["sim-1"],
		NodeAddresses: []v1.NodeAddress{
			{Type: v1.NodeHostName, Address: server.Name},
			{Type: v1.NodeExternalIP, Address: server.PublicNet.IPv4.IP.String()},
			{Type: v1.NodeInternalIP, Address: server.PrivateNet[0].IP.String()},
		},
		AdditionalLabels: map[string]string{providedByLabel: "cloud"},
	}
	if md.Zone == "" || md.Zone == "sim-1" {
		t.Errorf("zone %q is not a datacenter of sim-1 (datacenters %v)", md.Zone, datacenterByLocation(dcs))
	}
	if !reflect.DeepEqual(md, want) {
		t.Errorf("metadata\n got %+v\nwant %+v", md, want)
	}
}

func TestForeignOrMalformedProviderIDIsAnErrorNotAMissingInstance(t *testing.T) {
	instances, _ := newTestCloud(t, nil).InstancesV2()
	for _, pid := range []string{"simcloud://srv-1", "hcloud://srv-1", "hcloud://-1"} {
		exists, err := instances.InstanceExists(context.Background(), node("n", pid))
		if err == nil || exists {
			t.Errorf("InstanceExists(%s) = %v, %v; want an error (the lifecycle controller deletes Nodes on false)", pid, exists, err)
		}
	}
}

func TestAWrongTokenOrNetworkFailsAtStart(t *testing.T) {
	base := map[string]string{EnvEndpoint: sim.URL + dialectPath, EnvToken: sim.Token}
	cases := map[string]map[string]string{
		"wrong token":     {EnvToken: "not-the-token"},
		"missing network": {EnvNetwork: unique("no-such-net")},
	}
	for name, vars := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := simcloudtest.Must(LoadConfig(providertest.Env(base, vars))).Get(t)
			if _, err := NewCloud(context.Background(), cfg); err == nil {
				t.Fatal("NewCloud succeeded")
			}
		})
	}
}
