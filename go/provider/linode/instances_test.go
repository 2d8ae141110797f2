package linode

import (
	"context"
	"fmt"
	"testing"

	"github.com/linode/linodego/v2"
	v1 "k8s.io/api/core/v1"

	"ccm-sandbox/go/internal/providerkit/poll"
	"ccm-sandbox/go/internal/providerkit/providertest"
	"ccm-sandbox/go/internal/simcloudtest"
)

// waitStatus waits until the API shows the instance with status; "" waits until it is gone.
func waitStatus(t *testing.T, id int, status linodego.InstanceStatus) {
	t.Helper()
	poll.Eventually(t, fmt.Sprintf("instance %d %q", id, status), func() error {
		in, err := api(t).GetInstance(context.Background(), id)
		switch {
		case status == "" && linodego.IsNotFound(err):
			return nil
		case err == nil && in.Status != status:
			return fmt.Errorf("status %s", in.Status)
		}
		return err
	})
}

func TestInstances(t *testing.T) {
	instances, _ := newTestCloud(t).InstancesV2()
	providertest.Instances(t, instances, func(t *testing.T) providertest.Machine {
		in := createInstance(t, simcloudtest.UniqueName("inst"))
		waitStatus(t, in.ID, linodego.InstanceRunning)
		return providertest.Machine{
			Name: in.Label, ProviderID: ProviderID(in.ID),
			PowerOff: func(t *testing.T) {
				if err := api(t).ShutdownInstance(context.Background(), in.ID); err != nil {
					t.Fatal(err)
				}
				waitStatus(t, in.ID, linodego.InstanceOffline)
			},
			Delete: func(t *testing.T) {
				if err := api(t).DeleteInstance(context.Background(), in.ID); err != nil {
					t.Fatal(err)
				}
				waitStatus(t, in.ID, "")
			},
		}
	})
}

func TestInstanceMetadataHasTheTypeRegionAndThePublicAddressForBoth(t *testing.T) {
	in := createInstance(t, simcloudtest.UniqueName("meta"))
	instances, _ := newTestCloud(t).InstancesV2()
	md, err := instances.InstanceMetadata(context.Background(), providertest.Node(in.Label, ""))
	if err != nil {
		t.Fatal(err)
	}
	if md.InstanceType != "sc-small" || md.Region != "sim-1" {
		t.Errorf("metadata %+v", md)
	}
	var internal, external string
	for _, a := range md.NodeAddresses {
		switch a.Type {
		case v1.NodeInternalIP:
			internal = a.Address
		case v1.NodeExternalIP:
			external = a.Address
		}
	}
	if external == "" || internal != external {
		t.Errorf("addresses %v: want the public address as ExternalIP and (no private one) InternalIP", md.NodeAddresses)
	}
}
