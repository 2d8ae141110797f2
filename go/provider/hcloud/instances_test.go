package hcloud

import (
	"context"
	"reflect"
	"strings"
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

// The network is in the persona's presented block (ADR 0013), so the InternalIP is a 10.0.a.b address, as the
// server's private_net shows it.
func TestInstanceMetadataHasHetznersLabelAndAddressSemantics(t *testing.T) {
	network := createNetwork(t, "10.0.221.0/24")
	cloud := newTestCloud(t, map[string]string{EnvNetwork: network.Name})
	instances, _ := cloud.InstancesV2()
	server := createServer(t, unique("inst-md"), network)
	if !network.IPRange.Contains(server.PrivateNet[0].IP) {
		t.Fatalf("private net %s, want an address of %s", server.PrivateNet[0].IP, network.IPRange)
	}
	md, err := instances.InstanceMetadata(context.Background(), node(server.Name, ""))
	if err != nil {
		t.Fatal(err)
	}
	want := &cloudprovider.InstanceMetadata{
		ProviderID:   providerID(server.ID),
		InstanceType: "sc-small",
		Region:       "sim-1",
		// Hetzner's CCM: the legacy datacenter name of an older location, else the location.
		Zone: "sim-1",
		NodeAddresses: []v1.NodeAddress{
			{Type: v1.NodeHostName, Address: server.Name},
			{Type: v1.NodeExternalIP, Address: server.PublicNet.IPv4.IP.String()},
			{Type: v1.NodeInternalIP, Address: server.PrivateNet[0].IP.String()},
		},
		AdditionalLabels: map[string]string{providedByLabel: "cloud"},
	}
	if !reflect.DeepEqual(md, want) {
		t.Errorf("metadata\n got %+v\nwant %+v", md, want)
	}
}

// Hetzner's CCM adds a server's IPv6 (the ::1 of the /64 the API shows) as an ExternalIP only for the ipv6 and
// dualstack address families, and sets no zone with HCLOUD_INSTANCES_ZONE_LABEL_ENABLED=false.
func TestInstanceMetadataAddressFamiliesAndZoneSwitch(t *testing.T) {
	server := createServer(t, unique("inst-v6"), nil)
	if server.PublicNet.IPv6.Network == nil || server.PublicNet.IPv6.Network.String() != server.PublicNet.IPv6.IP.String()+"/64" {
		t.Fatalf("public_net.ipv6 %+v is not a /64 network", server.PublicNet.IPv6)
	}
	v4, v6 := server.PublicNet.IPv4.IP.String(), firstHostIn(server.PublicNet.IPv6.IP).String()
	if !strings.HasPrefix(v6, "2001:db8:") || !strings.HasSuffix(v6, "::1") {
		t.Fatalf("IPv6 host address %s is not the ::1 of a documentation-prefix /64", v6)
	}
	cases := []struct {
		vars     map[string]string
		external []string
		zone     string
	}{
		{vars: nil, external: []string{v4}, zone: "sim-1"},
		{vars: map[string]string{EnvAddressFamily: "dualstack"}, external: []string{v4, v6}, zone: "sim-1"},
		{vars: map[string]string{EnvAddressFamily: "ipv6", EnvZoneLabelEnabled: "false"}, external: []string{v6}, zone: ""},
	}
	for _, tc := range cases {
		instances, _ := newTestCloud(t, tc.vars).InstancesV2()
		md, err := instances.InstanceMetadata(context.Background(), node(server.Name, ""))
		if err != nil {
			t.Fatal(err)
		}
		var external []string
		for _, a := range md.NodeAddresses {
			if a.Type == v1.NodeExternalIP {
				external = append(external, a.Address)
			}
		}
		if !reflect.DeepEqual(external, tc.external) || md.Zone != tc.zone {
			t.Errorf("%v: ExternalIPs %v, zone %q; want %v, %q", tc.vars, external, md.Zone, tc.external, tc.zone)
		}
	}
}

func TestZoneOfIsTheLegacyDatacenterElseTheLocation(t *testing.T) {
	for location, want := range map[string]string{"fsn1": "fsn1-dc14", "nbg1": "nbg1-dc3", "hel1": "hel1-dc2", "sin": "sin-dc1", "sim-1": "sim-1", "new1": "new1"} {
		if got := zoneOf(location); got != want {
			t.Errorf("zoneOf(%s) = %s, want %s", location, got, want)
		}
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
