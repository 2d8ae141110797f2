package linode

import (
	"net/http"
	"testing"

	"github.com/linode/linodego/v2"
)

// The Linode CCM's reserved-address calls: a NodeBalancer created on a reserved IPv4 (the
// linode-loadbalancer-reserved-ipv4 annotation), the address kept when the NodeBalancer goes, and released
// with DeleteReservedIPAddress when the Service is deleted without retain-reserved-ipv4.
func TestReservedAddressAsTheCCMUsesIt(t *testing.T) {
	c := client(t)
	ip, err := c.ReserveIPAddress(ctx(t), linodego.ReserveIPOptions{Region: region(t), Tags: []string{"ccm-e2e"}})
	if err != nil || !ip.Reserved || ip.Address == "" || len(ip.Tags) != 1 || ip.AssignedEntity != nil {
		t.Fatalf("ReserveIPAddress = %+v, %v", ip, err)
	}
	nb, err := c.CreateNodeBalancer(ctx(t), linodego.NodeBalancerCreateOptions{Label: ptr("svc-reserved"), Region: region(t), IPv4: ptr(ip.Address), Type: linodego.NBTypePremium})
	if err != nil || nb.IPv4 == nil || *nb.IPv4 != ip.Address || nb.Type != linodego.NBTypePremium {
		t.Fatalf("CreateNodeBalancer on %s = %+v, %v", ip.Address, nb, err)
	}
	got, err := c.GetReservedIPAddress(ctx(t), ip.Address)
	if err != nil || got.AssignedEntity == nil || got.AssignedEntity.ID != nb.ID || got.AssignedEntity.Type != "nodebalancer" {
		t.Fatalf("GetReservedIPAddress = %+v, %v", got, err)
	}
	if err := c.DeleteNodeBalancer(ctx(t), nb.ID); err != nil {
		t.Fatal(err)
	}
	list, err := c.ListReservedIPAddresses(ctx(t), nil)
	if err != nil || len(list) != 1 || list[0].Address != ip.Address || list[0].AssignedEntity != nil {
		t.Fatalf("ListReservedIPAddresses after the NodeBalancer went = %+v, %v", list, err)
	}
	if err := c.DeleteReservedIPAddress(ctx(t), ip.Address); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetReservedIPAddress(ctx(t), ip.Address)
	if e := apiError(t, err); e.Code != http.StatusNotFound {
		t.Fatalf("after release: %v", err)
	}
}

// What the CCM reports in its SyncLoadBalancerFailed event for an address that is not reserved: Linode's
// reason with no field, which the e2e suite matches word for word.
func TestUnreservedAddressRefusedInLinodesWords(t *testing.T) {
	_, err := client(t).CreateNodeBalancer(ctx(t), linodego.NodeBalancerCreateOptions{Label: ptr("svc-unreserved"), Region: region(t), IPv4: ptr("127.250.9.9")})
	if err == nil || err.Error() != "[400] IPv4 address is not reserved" {
		t.Fatalf("err = %v", err)
	}
}

// A NodeBalancer's VIP reserved in place (PUT /networking/ips/{address} {"reserved": true}) stays the
// caller's after the NodeBalancer is deleted.
func TestNodeBalancerAddressReservedInPlace(t *testing.T) {
	c := client(t)
	nb := createNB(t, "svc-in-place")
	ip, err := c.UpdateIPAddress(ctx(t), *nb.IPv4, linodego.IPAddressUpdateOptions{Reserved: ptr(true)})
	if err != nil || !ip.Reserved || ip.AssignedEntity == nil || ip.AssignedEntity.ID != nb.ID {
		t.Fatalf("UpdateIPAddress = %+v, %v", ip, err)
	}
	t.Cleanup(func() { _ = c.DeleteReservedIPAddress(ctx(t), ip.Address) })
	if err := c.DeleteNodeBalancer(ctx(t), nb.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := c.GetReservedIPAddress(ctx(t), ip.Address); err != nil || got.AssignedEntity != nil {
		t.Fatalf("GetReservedIPAddress = %+v, %v", got, err)
	}
}

// A deny list as the CCM builds it from a denyList ACL: DROP rules under inbound_policy ACCEPT, read back
// as sent through the NodeBalancer.
func TestDenyListFirewall(t *testing.T) {
	c := client(t)
	nb := createNB(t, "svc-deny")
	drop := linodego.FirewallRuleInbound{Action: "DROP", Label: "deny-list", Protocol: linodego.TCP, Ports: "80", Addresses: linodego.NetworkAddresses{IPv4: []string{"8.8.8.8/32", "7.7.7.7"}}}
	fw, err := c.CreateFirewall(ctx(t), linodego.FirewallCreateOptions{
		Label: "svc-deny-acl", Rules: linodego.FirewallRulesCreateOptions{Inbound: []linodego.FirewallRuleInbound{drop}, InboundPolicy: "ACCEPT", OutboundPolicy: "ACCEPT"},
		Devices: linodego.DevicesCreationOptions{NodeBalancers: []int{nb.ID}},
	})
	if err != nil {
		t.Fatalf("CreateFirewall: %v", err)
	}
	t.Cleanup(func() { _ = c.DeleteFirewall(ctx(t), fw.ID) })
	fws, err := c.ListNodeBalancerFirewalls(ctx(t), nb.ID, nil)
	if err != nil || len(fws) != 1 || fws[0].Rules.InboundPolicy != "ACCEPT" || len(fws[0].Rules.Inbound) != 1 || fws[0].Rules.Inbound[0].Action != "DROP" {
		t.Fatalf("ListNodeBalancerFirewalls = %+v, %v", fws, err)
	}
	if got := fws[0].Rules.Inbound[0].Addresses.IPv4; len(got) != 2 || got[1] != "7.7.7.7/32" {
		t.Fatalf("addresses = %v", got)
	}
}
