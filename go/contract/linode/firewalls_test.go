package linode

import (
	"net/http"
	"strings"
	"testing"

	"github.com/linode/linodego/v2"
)

func acceptFrom(label, ports string, cidrs ...string) linodego.FirewallRuleInbound {
	return linodego.FirewallRuleInbound{Action: "ACCEPT", Label: label, Protocol: linodego.TCP, Ports: ports, Addresses: linodego.NetworkAddresses{IPv4: cidrs}}
}

// The Linode CCM's firewall calls for a NodeBalancer with an allow list: create the firewall with the
// NodeBalancer as device, find it through the NodeBalancer, replace its rules, and detach and delete it.
func TestFirewallOnANodeBalancerAsTheCCMUsesIt(t *testing.T) {
	c := client(t)
	nb := createNB(t, "svc-firewall")
	fw, err := c.CreateFirewall(ctx(t), linodego.FirewallCreateOptions{
		Label: "svc-firewall-acl", Tags: []string{"kubernetes"},
		Rules: linodego.FirewallRulesCreateOptions{
			Inbound: []linodego.FirewallRuleInbound{acceptFrom("allow-list", "80,443", "10.0.0.0/8", "192.168.1.1")}, InboundPolicy: "DROP", OutboundPolicy: "ACCEPT",
		},
		Devices: linodego.DevicesCreationOptions{NodeBalancers: []int{nb.ID}},
	})
	if err != nil {
		t.Fatalf("CreateFirewall: %v", err)
	}
	t.Cleanup(func() { _ = c.DeleteFirewall(ctx(t), fw.ID) })
	in := fw.Rules.Inbound
	if fw.Status != linodego.FirewallEnabled || len(in) != 1 || in[0].Ports != "80,443" || in[0].Label != "allow-list" ||
		strings.Join(in[0].Addresses.IPv4, " ") != "10.0.0.0/8 192.168.1.1/32" || fw.Rules.InboundPolicy != "DROP" || len(fw.Entities) != 1 || fw.Entities[0].ID != nb.ID {
		t.Fatalf("created %+v", fw)
	}
	fws, err := c.ListNodeBalancerFirewalls(ctx(t), nb.ID, nil)
	if err != nil || len(fws) != 1 || fws[0].ID != fw.ID {
		t.Fatalf("ListNodeBalancerFirewalls = %v, %v", fws, err)
	}
	rules, err := c.UpdateFirewallRules(ctx(t), fw.ID, linodego.FirewallRulesUpdateOptions{
		Inbound: []linodego.FirewallRuleInbound{acceptFrom("allow-list", "80", "127.0.0.0/8")}, InboundPolicy: "DROP", OutboundPolicy: "ACCEPT",
	})
	if err != nil || len(rules.Inbound) != 1 || rules.Inbound[0].Addresses.IPv4[0] != "127.0.0.0/8" {
		t.Fatalf("UpdateFirewallRules = %+v, %v", rules, err)
	}
	got, err := c.GetFirewall(ctx(t), fw.ID)
	if err != nil || got.Rules.Inbound[0].Ports != "80" {
		t.Fatalf("GetFirewall = %+v, %v", got, err)
	}
	devices, err := c.ListFirewallDevices(ctx(t), fw.ID, nil)
	if err != nil || len(devices) != 1 || devices[0].Entity.Type != linodego.FirewallDeviceNodeBalancer || devices[0].Entity.ID != nb.ID {
		t.Fatalf("ListFirewallDevices = %+v, %v", devices, err)
	}
	if err := c.DeleteFirewallDevice(ctx(t), fw.ID, devices[0].ID); err != nil {
		t.Fatal(err)
	}
	if fws, err := c.ListNodeBalancerFirewalls(ctx(t), nb.ID, nil); err != nil || len(fws) != 0 {
		t.Fatalf("after detach: %v, %v", fws, err)
	}
	if _, err := c.CreateFirewallDevice(ctx(t), fw.ID, linodego.FirewallDeviceCreateOptions{ID: nb.ID, Type: linodego.FirewallDeviceNodeBalancer}); err != nil {
		t.Fatalf("CreateFirewallDevice: %v", err)
	}
	if err := c.DeleteFirewall(ctx(t), fw.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetFirewall(ctx(t), fw.ID); !linodego.IsNotFound(err) {
		t.Fatalf("deleted firewall: %v, want 404", err)
	}
	if fws, err := c.ListNodeBalancerFirewalls(ctx(t), nb.ID, nil); err != nil || len(fws) != 0 {
		t.Fatalf("after delete: %v, %v", fws, err)
	}
}

func TestFirewallRefusesWhatItCannotEnforceNamingTheField(t *testing.T) {
	c := client(t)
	cases := []struct {
		name  string
		opts  linodego.FirewallCreateOptions
		field string
	}{
		{"an ACCEPT rule after a DROP rule", linodego.FirewallCreateOptions{Label: "mixed-list", Rules: linodego.FirewallRulesCreateOptions{
			Inbound: []linodego.FirewallRuleInbound{
				{Action: "DROP", Protocol: linodego.TCP, Addresses: linodego.NetworkAddresses{IPv4: []string{"10.0.0.0/8"}}},
				{Action: "ACCEPT", Protocol: linodego.TCP, Addresses: linodego.NetworkAddresses{IPv4: []string{"10.1.0.0/16"}}},
			},
			InboundPolicy: "ACCEPT", OutboundPolicy: "ACCEPT",
		}}, "[rules.inbound.1.action]"},
		{"a linode device", linodego.FirewallCreateOptions{Label: "linode-dev", Rules: linodego.FirewallRulesCreateOptions{InboundPolicy: "ACCEPT", OutboundPolicy: "ACCEPT"},
			Devices: linodego.DevicesCreationOptions{Linodes: []int{1}}}, "[devices.linodes]"},
		{"a missing nodebalancer", linodego.FirewallCreateOptions{Label: "no-nb", Rules: linodego.FirewallRulesCreateOptions{InboundPolicy: "ACCEPT", OutboundPolicy: "ACCEPT"},
			Devices: linodego.DevicesCreationOptions{NodeBalancers: []int{987654}}}, "[devices.nodebalancers.0]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.CreateFirewall(ctx(t), tc.opts)
			if e := apiError(t, err); e.Code >= 500 || !strings.Contains(e.Message, tc.field) {
				t.Fatalf("%v, want a 4xx naming %s", err, tc.field)
			}
		})
	}
	_, err := c.GetFirewall(ctx(t), 987654)
	if e := apiError(t, err); e.Code != http.StatusNotFound {
		t.Fatalf("missing firewall: %v", err)
	}
}
