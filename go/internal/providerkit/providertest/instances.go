// Package providertest holds the contract every provider's tests check against a real simcloud, with the
// provider's own fixtures: what upstream's cloud controllers rely on, asserted once for all providers.
package providertest

import (
	"context"
	"errors"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cloudprovider "k8s.io/cloud-provider"

	"ccm-sandbox/go/internal/simcloudtest"
)

// Machine is one machine of the cloud as a Node names it, with what the contract does to it. PowerOff and
// Delete return once the cloud's API shows the machine off, or gone.
type Machine struct {
	Name, ProviderID string
	PowerOff, Delete func(t *testing.T)
}

// Node is a Node with name and providerID (empty: not initialised yet).
func Node(name, providerID string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.NodeSpec{ProviderID: providerID}}
}

// Instances checks InstancesV2 as the cloud-node and cloud-node-lifecycle controllers use it: a node's
// machine is found by name before it has a providerID and by providerID after; an off machine is shut down
// but exists; a deleted one, or a name no machine has, does not exist and has no metadata
// (InstanceNotFound); and a providerID of another cloud is an error, never "does not exist", since the
// lifecycle controller deletes a Node on that answer.
//
// create makes a machine and returns once the API shows it running.
func Instances(t *testing.T, instances cloudprovider.InstancesV2, create func(t *testing.T) Machine) {
	t.Helper()
	running, off, deleted := create(t), create(t), create(t)
	off.PowerOff(t)
	deleted.Delete(t)
	cases := []struct {
		name           string
		node           *v1.Node
		exists, off    bool
		wantProviderID string // "": InstanceMetadata is InstanceNotFound
	}{
		{name: "by name", node: Node(running.Name, ""), exists: true, wantProviderID: running.ProviderID},
		{name: "by providerID", node: Node("any-name", running.ProviderID), exists: true, wantProviderID: running.ProviderID},
		{name: "off", node: Node(off.Name, ""), exists: true, off: true, wantProviderID: off.ProviderID},
		{name: "off, by providerID", node: Node("any-name", off.ProviderID), exists: true, off: true, wantProviderID: off.ProviderID},
		{name: "deleted", node: Node(deleted.Name, deleted.ProviderID)},
		{name: "no machine has the node's name", node: Node(simcloudtest.UniqueName("nobody"), "")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if exists, err := instances.InstanceExists(ctx, tc.node); err != nil || exists != tc.exists {
				t.Errorf("InstanceExists = %v, %v; want %v", exists, err, tc.exists)
			}
			if off, err := instances.InstanceShutdown(ctx, tc.node); err != nil || off != tc.off {
				t.Errorf("InstanceShutdown = %v, %v; want %v", off, err, tc.off)
			}
			md, err := instances.InstanceMetadata(ctx, tc.node)
			switch {
			case tc.wantProviderID == "" && !errors.Is(err, cloudprovider.InstanceNotFound):
				t.Errorf("InstanceMetadata = %+v, %v; want InstanceNotFound", md, err)
			case tc.wantProviderID != "" && (err != nil || md.ProviderID != tc.wantProviderID):
				t.Errorf("InstanceMetadata = %+v, %v; want providerID %s", md, err, tc.wantProviderID)
			}
		})
	}
	t.Run("another cloud's providerID", func(t *testing.T) {
		if exists, err := instances.InstanceExists(context.Background(), Node("n", "aws:///eu-west-1a/i-123")); err == nil || exists {
			t.Errorf("InstanceExists = %v, %v; want an error (the lifecycle controller deletes Nodes on false)", exists, err)
		}
	})
}
