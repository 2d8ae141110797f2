package linode

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/linode/linodego/v2"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cloudprovider "k8s.io/cloud-provider"

	"ccm-sandbox/go/internal/providerkit/poll"
)

func TestInstanceMetadataByNameThenByProviderID(t *testing.T) {
	ctx := context.Background()
	in := createInstance(t, "node-meta")
	inst, _ := newTestCloud(t).InstancesV2()
	md, err := inst.InstanceMetadata(ctx, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-meta"}})
	if err != nil {
		t.Fatal(err)
	}
	if md.ProviderID != ProviderID(in.ID) || md.InstanceType != "sc-small" || md.Region != "sim-1" {
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
	byID := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "renamed"}, Spec: v1.NodeSpec{ProviderID: md.ProviderID}}
	if exists, err := inst.InstanceExists(ctx, byID); err != nil || !exists {
		t.Fatalf("InstanceExists(by providerID) = %v, %v", exists, err)
	}
}

func TestInstanceShutdownAndGone(t *testing.T) {
	ctx := context.Background()
	in := createInstance(t, "node-off")
	inst, _ := newTestCloud(t).InstancesV2()
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-off"}, Spec: v1.NodeSpec{ProviderID: ProviderID(in.ID)}}
	poll.Eventually(t, "instance running", func() error {
		got, err := api(t).GetInstance(ctx, in.ID)
		if err == nil && got.Status != linodego.InstanceRunning {
			err = fmt.Errorf("status %s", got.Status)
		}
		return err
	})
	if err := api(t).ShutdownInstance(ctx, in.ID); err != nil {
		t.Fatal(err)
	}
	poll.Eventually(t, "InstanceShutdown true", func() error { return poll.Returns(true)(inst.InstanceShutdown(ctx, node)) })
	if err := api(t).DeleteInstance(ctx, in.ID); err != nil {
		t.Fatal(err)
	}
	poll.Eventually(t, "InstanceExists false", func() error { return poll.Returns(false)(inst.InstanceExists(ctx, node)) })
	if _, err := inst.InstanceMetadata(ctx, node); !errors.Is(err, cloudprovider.InstanceNotFound) {
		t.Fatalf("metadata of a deleted instance: %v, want InstanceNotFound", err)
	}
}
