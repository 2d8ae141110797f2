package hcloud

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cloudprovider "k8s.io/cloud-provider"

	"ccm-sandbox/go/internal/providerkit"
	"ccm-sandbox/go/internal/simcloudtest"
)

func node(name, pid string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.NodeSpec{ProviderID: pid}}
}

func TestInstances(t *testing.T) {
	cloud := newTestCloud(t, nil)
	instances, _ := cloud.InstancesV2()
	c := api()
	running := createServer(t, unique("inst-run"), nil)
	off := createServer(t, unique("inst-off"), nil)
	serverAction(t, off, c.Server.Poweroff)
	gone := createServer(t, unique("inst-gone"), nil)
	deleted, _, err := c.Server.DeleteWithResult(context.Background(), gone)
	if err == nil {
		err = c.Action.WaitFor(context.Background(), deleted.Action)
	}
	if err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name        string
		node        *v1.Node
		exists      bool
		shutdown    bool
		metadataErr error
		wantID      int64
	}{
		{name: "by name", node: node(running.Name, ""), exists: true, wantID: running.ID},
		{name: "by providerID", node: node("any-name", providerID(running.ID)), exists: true, wantID: running.ID},
		{name: "powered off", node: node(off.Name, ""), exists: true, shutdown: true, wantID: off.ID},
		{name: "deleted server", node: node(gone.Name, providerID(gone.ID)), metadataErr: cloudprovider.InstanceNotFound},
		{name: "no server with the node's name", node: node(unique("nobody"), ""), metadataErr: cloudprovider.InstanceNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			exists, err := instances.InstanceExists(ctx, tc.node)
			if err != nil || exists != tc.exists {
				t.Errorf("InstanceExists = %v, %v; want %v", exists, err, tc.exists)
			}
			shutdown, err := instances.InstanceShutdown(ctx, tc.node)
			if err != nil || shutdown != tc.shutdown {
				t.Errorf("InstanceShutdown = %v, %v; want %v", shutdown, err, tc.shutdown)
			}
			md, err := instances.InstanceMetadata(ctx, tc.node)
			if tc.metadataErr != nil {
				if !errors.Is(err, tc.metadataErr) {
					t.Errorf("InstanceMetadata error %v, want %v", err, tc.metadataErr)
				}
				return
			}
			if err != nil || md.ProviderID != providerID(tc.wantID) {
				t.Fatalf("InstanceMetadata = %+v, %v; want providerID %s", md, err, providerID(tc.wantID))
			}
		})
	}
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
	for _, pid := range []string{"simcloud://srv-1", "hcloud://srv-1", "aws:///eu-west-1a/i-123"} {
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
			all := maps.Clone(base)
			maps.Copy(all, vars)
			cfg := simcloudtest.Must(LoadConfig(providerkit.Map(all))).Get(t)
			if _, err := NewCloud(context.Background(), cfg); err == nil {
				t.Fatal("NewCloud succeeded")
			}
		})
	}
}
