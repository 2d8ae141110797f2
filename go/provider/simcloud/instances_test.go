package simcloud

import (
	"context"
	"errors"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cloudprovider "k8s.io/cloud-provider"

	"ccm-sandbox/go/internal/simcloudtest"
)

func node(name, providerID string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.NodeSpec{ProviderID: providerID}}
}

func TestInstances(t *testing.T) {
	cloud := newTestCloud(t, "")
	instances, _ := cloud.InstancesV2()
	running := sim.CreateServer(t, unique("inst-run"), simcloudtest.ServerOpts{})
	off := sim.CreateServer(t, unique("inst-off"), simcloudtest.ServerOpts{})
	sim.ServerAction(t, off["id"].(string), "poweroff")
	gone := sim.CreateServer(t, unique("inst-gone"), simcloudtest.ServerOpts{})
	sim.DeleteServer(t, gone["id"].(string))

	cases := []struct {
		name         string
		node         *v1.Node
		exists       bool
		shutdown     bool
		metadataErr  error
		wantServerID string
	}{
		{name: "by name", node: node(running["name"].(string), ""), exists: true, wantServerID: running["id"].(string)},
		{name: "by providerID", node: node("any-name", "simcloud://"+running["id"].(string)), exists: true, wantServerID: running["id"].(string)},
		{name: "powered off", node: node(off["name"].(string), ""), exists: true, shutdown: true, wantServerID: off["id"].(string)},
		{name: "deleted server", node: node(gone["name"].(string), "simcloud://"+gone["id"].(string)), metadataErr: cloudprovider.InstanceNotFound},
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
			if err != nil {
				t.Fatal(err)
			}
			if md.ProviderID != "simcloud://"+tc.wantServerID {
				t.Errorf("ProviderID %q", md.ProviderID)
			}
		})
	}
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

func TestForeignProviderIDIsAnErrorNotAMissingInstance(t *testing.T) {
	cloud := newTestCloud(t, "")
	instances, _ := cloud.InstancesV2()
	exists, err := instances.InstanceExists(context.Background(), node("n", "aws:///eu-west-1a/i-123"))
	if err == nil || exists {
		t.Fatalf("InstanceExists = %v, %v; want an error (the lifecycle controller deletes Nodes on false)", exists, err)
	}
}
