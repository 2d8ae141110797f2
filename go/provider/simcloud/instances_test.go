package simcloud

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"

	"ccm-sandbox/go/internal/providerkit/providertest"
	"ccm-sandbox/go/internal/simcloudtest"
)

var node = providertest.Node

func TestInstances(t *testing.T) {
	instances, _ := newTestCloud(t, "").InstancesV2()
	providertest.Instances(t, instances, func(t *testing.T) providertest.Machine {
		s := sim.CreateServer(t, unique("inst"), simcloudtest.ServerOpts{})
		id := s["id"].(string)
		return providertest.Machine{
			Name: s["name"].(string), ProviderID: "simcloud://" + id,
			PowerOff: func(t *testing.T) { sim.ServerAction(t, id, "poweroff") },
			Delete:   func(t *testing.T) { sim.DeleteServer(t, id) },
		}
	})
}

func TestInstanceMetadataCarriesTypeZoneRegionAndAddresses(t *testing.T) {
	cloud := newTestCloud(t, "")
	instances, _ := cloud.InstancesV2()
	s := sim.CreateServer(t, unique("inst-md"), simcloudtest.ServerOpts{})
	md, err := instances.InstanceMetadata(context.Background(), node(s["name"].(string), ""))
	if err != nil {
		t.Fatal(err)
	}
	want := []v1.NodeAddress{}
	if ip, ok := s["private_ipv4"].(string); ok {
		want = append(want, v1.NodeAddress{Type: v1.NodeInternalIP, Address: ip})
	}
	if ip, ok := s["public_ipv4"].(string); ok {
		want = append(want, v1.NodeAddress{Type: v1.NodeExternalIP, Address: ip})
	}
	want = append(want, v1.NodeAddress{Type: v1.NodeHostName, Address: s["name"].(string)})
	if md.InstanceType != s["server_type"] || md.Zone != s["zone"] || md.Region != s["region"] {
		t.Errorf("metadata %+v, server %v", md, s)
	}
	if len(md.NodeAddresses) != len(want) {
		t.Fatalf("addresses %v, want %v", md.NodeAddresses, want)
	}
	for i := range want {
		if md.NodeAddresses[i] != want[i] {
			t.Errorf("address %d = %v, want %v", i, md.NodeAddresses[i], want[i])
		}
	}
}
