package linode

import (
	"context"
	"fmt"
	"strings"
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

// addressesOf is the metadata's InternalIPs and ExternalIPs.
func addressesOf(t *testing.T, in *linodego.Instance) (internal, external []string) {
	t.Helper()
	instances, _ := newTestCloud(t).InstancesV2()
	md, err := instances.InstanceMetadata(context.Background(), providertest.Node(in.Label, ""))
	if err != nil {
		t.Fatal(err)
	}
	if md.InstanceType != "sc-small" || md.Region != "sim-1" {
		t.Errorf("metadata %+v", md)
	}
	for _, a := range md.NodeAddresses {
		switch a.Type {
		case v1.NodeInternalIP:
			internal = append(internal, a.Address)
		case v1.NodeExternalIP:
			external = append(external, a.Address)
		}
	}
	return internal, external
}

// Linode's CCM makes an address an InternalIP only when it is RFC 1918 (net.IP.IsPrivate): an instance
// with only its public address has no InternalIP, as there.
func TestInstanceMetadataGivesAPublicOnlyInstanceNoInternalIP(t *testing.T) {
	internal, external := addressesOf(t, createInstance(t, simcloudtest.UniqueName("meta")))
	if len(external) != 1 || len(internal) != 0 {
		t.Errorf("InternalIPs %v, ExternalIPs %v: want the public address as the only ExternalIP and no InternalIP", internal, external)
	}
}

// An instance on a VPC has the private address the persona presents (192.168.128.0/17) as InternalIP,
// the one a NodeBalancer node gets; the public loopback address stays an ExternalIP.
func TestInstanceMetadataGivesThePresentedPrivateAddressAsInternalIP(t *testing.T) {
	c := api(t)
	vpc := simcloudtest.Must(c.CreateVPC(context.Background(), linodego.VPCCreateOptions{
		Label: simcloudtest.UniqueName("vpc"), Region: "sim-1", Subnets: []linodego.VPCSubnetCreateOptions{{Label: "nodes", IPv4: "10.0.31.0/24"}},
	})).Get(t)
	sub := vpc.Subnets[0].ID
	in := simcloudtest.Must(c.CreateInstance(context.Background(), linodego.InstanceCreateOptions{
		Region: "sim-1", Type: "sc-small", Label: simcloudtest.UniqueName("vpcnode"),
		Interfaces: []linodego.InstanceConfigInterfaceCreateOptions{{Purpose: linodego.InterfacePurposePublic}, {Purpose: linodego.InterfacePurposeVPC, SubnetID: &sub}},
	})).Get(t)
	t.Cleanup(func() { _ = c.DeleteInstance(context.Background(), in.ID) })
	internal, external := addressesOf(t, in)
	if len(internal) != 1 || !strings.HasPrefix(internal[0], "192.168.159.") || len(external) != 1 || !strings.HasPrefix(external[0], "127.") {
		t.Errorf("InternalIPs %v, ExternalIPs %v: want 192.168.159.x (the private IPv4 of 10.0.31.x) inside and the loopback public address outside", internal, external)
	}
}
