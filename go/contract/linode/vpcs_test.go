package linode

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/linode/linodego/v2"
)

// createVPCWithInstance makes a VPC with one subnet and an instance with a vpc interface on it.
func createVPCWithInstance(t *testing.T, label, subnet string) (*linodego.VPC, *linodego.Instance) {
	t.Helper()
	c := client(t)
	vpc, err := c.CreateVPC(ctx(t), linodego.VPCCreateOptions{Label: label, Region: region(t), Subnets: []linodego.VPCSubnetCreateOptions{{Label: "nodes", IPv4: subnet}}})
	if err != nil {
		t.Fatalf("CreateVPC: %v", err)
	}
	types, err := c.ListTypes(ctx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	sub := vpc.Subnets[0].ID
	in, err := c.CreateInstance(ctx(t), linodego.InstanceCreateOptions{
		Region: region(t), Type: types[0].ID, Label: label + "-node",
		Interfaces: []linodego.InstanceConfigInterfaceCreateOptions{{Purpose: linodego.InterfacePurposePublic}, {Purpose: linodego.InterfacePurposeVPC, SubnetID: &sub}},
	})
	if err != nil {
		t.Fatalf("CreateInstance: %v", err)
	}
	t.Cleanup(func() { _ = c.DeleteInstance(ctx(t), in.ID) })
	return vpc, in
}

// vpcInterface is the instance's config and its interface on vpcID, failing the test when there is none.
func vpcInterface(t *testing.T, linodeID, vpcID int) (linodego.InstanceConfig, linodego.InstanceConfigInterface) {
	t.Helper()
	configs, err := client(t).ListInstanceConfigs(ctx(t), linodeID, nil)
	if err != nil {
		t.Fatalf("ListInstanceConfigs: %v", err)
	}
	for _, cfg := range configs {
		for _, iface := range cfg.Interfaces {
			if iface.Purpose == linodego.InterfacePurposeVPC && iface.VPCID != nil && *iface.VPCID == vpcID {
				return cfg, iface
			}
		}
	}
	t.Fatalf("instance %d has no vpc interface on %d in %+v", linodeID, vpcID, configs)
	return linodego.InstanceConfig{}, linodego.InstanceConfigInterface{}
}

// The Linode CCM's route controller: find the VPC by label, read its subnets, find each instance's vpc
// interface in its configs, set ip_ranges to the node's pod CIDR, and read routes back from the VPC's IPs.
func TestVPCRoutesAsTheRouteControllerUsesThem(t *testing.T) {
	c := client(t)
	vpc, in := createVPCWithInstance(t, "routes-vpc", "10.200.0.0/24")
	filter, _ := json.Marshal(map[string]string{"label": "routes-vpc"})
	vpcs, err := c.ListVPCs(ctx(t), linodego.NewListOptions(0, string(filter)))
	if err != nil || len(vpcs) != 1 || vpcs[0].ID != vpc.ID {
		t.Fatalf("ListVPCs(label) = %+v, %v", vpcs, err)
	}
	subnets, err := c.ListVPCSubnets(ctx(t), vpc.ID, nil)
	if err != nil || len(subnets) != 1 || subnets[0].IPv4 != "10.200.0.0/24" || len(subnets[0].Linodes) != 1 || subnets[0].Linodes[0].ID != in.ID {
		t.Fatalf("ListVPCSubnets = %+v, %v", subnets, err)
	}
	cfg, iface := vpcInterface(t, in.ID, vpc.ID)
	if iface.SubnetID == nil || *iface.SubnetID != subnets[0].ID || iface.IPv4 == nil || iface.IPv4.VPC == "" || len(iface.IPRanges) != 0 {
		t.Fatalf("vpc interface = %+v", iface)
	}
	got, err := c.UpdateInstanceConfigInterface(ctx(t), in.ID, cfg.ID, iface.ID, linodego.InstanceConfigInterfaceUpdateOptions{IPRanges: []string{"10.244.1.0/24"}})
	if err != nil || !slices.Equal(got.IPRanges, []string{"10.244.1.0/24"}) {
		t.Fatalf("UpdateInstanceConfigInterface = %+v, %v", got, err)
	}
	linodeFilter := fmt.Sprintf(`{"linode_id": %d}`, in.ID)
	ips, err := c.ListVPCIPAddresses(ctx(t), vpc.ID, linodego.NewListOptions(0, linodeFilter))
	if err != nil {
		t.Fatalf("ListVPCIPAddresses: %v", err)
	}
	var ranges []string
	for _, ip := range ips {
		if ip.AddressRange != nil {
			ranges = append(ranges, *ip.AddressRange)
		}
	}
	if !slices.Equal(ranges, []string{"10.244.1.0/24"}) || len(ips) != 2 {
		t.Fatalf("ListVPCIPAddresses = %+v", ips)
	}
	if _, err := c.UpdateInstanceConfigInterface(ctx(t), in.ID, cfg.ID, iface.ID, linodego.InstanceConfigInterfaceUpdateOptions{IPRanges: []string{}}); err != nil {
		t.Fatal(err)
	}
	if _, after := vpcInterface(t, in.ID, vpc.ID); len(after.IPRanges) != 0 {
		t.Fatalf("after clearing: %+v", after)
	}
	if again, err := c.GetVPC(ctx(t), vpc.ID); err != nil || again.Label != "routes-vpc" || len(again.Subnets) != 1 {
		t.Fatalf("GetVPC = %+v, %v", again, err)
	}
}

// A range the network cannot route (overlapping another instance's) is a 400 naming the ip_ranges entry,
// and an unknown subnet or VPC is Not found.
func TestVPCErrorsNameTheField(t *testing.T) {
	c := client(t)
	vpc, in := createVPCWithInstance(t, "errors-vpc", "10.201.0.0/24")
	cfg, iface := vpcInterface(t, in.ID, vpc.ID)
	if _, err := c.UpdateInstanceConfigInterface(ctx(t), in.ID, cfg.ID, iface.ID, linodego.InstanceConfigInterfaceUpdateOptions{IPRanges: []string{"10.245.0.0/16"}}); err != nil {
		t.Fatal(err)
	}
	_, err := c.UpdateInstanceConfigInterface(ctx(t), in.ID, cfg.ID, iface.ID, linodego.InstanceConfigInterfaceUpdateOptions{IPRanges: []string{"10.245.0.0/16", "10.245.1.0/24"}})
	if e := apiError(t, err); e.Code != http.StatusBadRequest || !strings.Contains(e.Message, "ip_ranges.1") {
		t.Fatalf("overlapping range: %+v", e)
	}
	_, err = c.UpdateInstanceConfigInterface(ctx(t), in.ID, cfg.ID, iface.ID, linodego.InstanceConfigInterfaceUpdateOptions{IPRanges: []string{"10.246.0.1/33"}})
	if e := apiError(t, err); e.Code != http.StatusBadRequest || !strings.Contains(e.Message, "ip_ranges.0") {
		t.Fatalf("bad CIDR: %+v", e)
	}
	if _, err := c.GetVPC(ctx(t), 999999); apiError(t, err).Code != http.StatusNotFound {
		t.Fatalf("GetVPC(unknown) = %v", err)
	}
}
