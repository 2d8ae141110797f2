package linode

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/linode/linodego/v2"
)

func hostRanges(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("198.18.%d.%d/32", i/256, i%256)
	}
	return out
}

// Linode's CCM splits an ACL annotation's addresses into rules of at most 255 addresses, all with one label
// and the Service's ports, and refuses more than 25 rules (services/firewalls.go, processACL and chunkIPs);
// on every sync it compares the union of the rules' addresses with the ACL (ipsChanged), so the firewall
// must read back every address it was given, normalised as Linode does (a bare address as a /32) and with
// a presented private address as sent.
func TestFirewallTakesRulesOfUpTo255AddressesAsLinodesCCMChunksThem(t *testing.T) {
	c := client(t)
	ips := append(hostRanges(299), "192.168.150.7")
	fw, err := c.CreateFirewall(ctx(t), linodego.FirewallCreateOptions{
		Label: "acl-chunked", Rules: linodego.FirewallRulesCreateOptions{
			Inbound: []linodego.FirewallRuleInbound{acceptFrom("allow-svc", "80", ips[:255]...), acceptFrom("allow-svc", "80", ips[255:]...)}, InboundPolicy: "DROP", OutboundPolicy: "ACCEPT",
		},
	})
	if err != nil {
		t.Fatalf("CreateFirewall: %v", err)
	}
	t.Cleanup(func() { _ = c.DeleteFirewall(ctx(t), fw.ID) })
	var got []string
	for _, r := range fw.Rules.Inbound {
		if len(r.Addresses.IPv4) > 255 || r.Ports != "80" || r.Label != "allow-svc" {
			t.Fatalf("rule %s ports %s with %d addresses: want allow-svc, 80, at most 255", r.Label, r.Ports, len(r.Addresses.IPv4))
		}
		got = append(got, r.Addresses.IPv4...)
	}
	want := append(slices.Clone(ips[:299]), "192.168.150.7/32")
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) || len(fw.Rules.Inbound) > 25 {
		t.Fatalf("%d rules with %d addresses: want the %d given, normalised", len(fw.Rules.Inbound), len(got), len(want))
	}
}

func TestFirewallRefusesMoreThanLinodesLimitsNamingTheField(t *testing.T) {
	many := make([]linodego.FirewallRuleInbound, 26)
	for i := range many {
		many[i] = acceptFrom("allow-svc", "80", fmt.Sprintf("198.19.0.%d/32", i))
	}
	for name, tc := range map[string]struct {
		rules []linodego.FirewallRuleInbound
		field string
	}{
		"256 addresses in a rule": {[]linodego.FirewallRuleInbound{acceptFrom("allow-svc", "80", hostRanges(256)...)}, "rules.inbound.0.addresses"},
		"26 rules":                {many, "rules.inbound"},
		"not an address":          {[]linodego.FirewallRuleInbound{acceptFrom("allow-svc", "80", "example.com")}, "rules.inbound.0.addresses.ipv4.0"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := client(t).CreateFirewall(ctx(t), linodego.FirewallCreateOptions{
				Label: "acl-too-big", Rules: linodego.FirewallRulesCreateOptions{Inbound: tc.rules, InboundPolicy: "DROP", OutboundPolicy: "ACCEPT"},
			})
			if e := apiError(t, err); e.Code != 400 || !strings.Contains(e.Message, tc.field) {
				t.Fatalf("%v, want a 400 naming %s", err, tc.field)
			}
		})
	}
}
