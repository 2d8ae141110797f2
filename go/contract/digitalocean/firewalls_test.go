package digitalocean

import (
	"net/http"
	"strings"
	"testing"

	"github.com/digitalocean/godo"

	"ccm-sandbox/go/internal/simcloudtest"
)

// nodePortRule is an inbound rule as the DigitalOcean CCM's firewall controller writes one per NodePort.
func nodePortRule(ports string) godo.InboundRule {
	return godo.InboundRule{Protocol: "tcp", PortRange: ports, Sources: &godo.Sources{Addresses: []string{"0.0.0.0/0", "::/0"}}}
}

// The CCM finds its public-access firewall by name in the list, creates it when missing and replaces it (PUT) on change.
func TestTheCCMsPublicAccessFirewallIsCreatedFoundUpdatedAndDeleted(t *testing.T) {
	c := client(t)
	name := simcloudtest.UniqueName("k8s-public-access")
	fw, _, err := c.Firewalls.Create(ctx(t), &godo.FirewallRequest{Name: name, InboundRules: []godo.InboundRule{nodePortRule("30080")}, Tags: []string{"k8s:c1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = c.Firewalls.Delete(ctx(t), fw.ID) })
	if len(fw.ID) != 36 || fw.Name != name || fw.Status != "succeeded" || len(fw.Tags) != 1 || fw.Tags[0] != "k8s:c1" {
		t.Fatalf("created: %+v", fw)
	}
	// The CCM compares the addresses it wrote (IPv6 included) with what it reads back.
	if r := fw.InboundRules; len(r) != 1 || r[0].Protocol != "tcp" || r[0].PortRange != "30080" || r[0].Sources == nil ||
		strings.Join(r[0].Sources.Addresses, ",") != "0.0.0.0/0,::/0" {
		t.Fatalf("inbound rules: %+v", r)
	}
	var found *godo.Firewall
	opt := &godo.ListOptions{PerPage: 1}
	for found == nil {
		list, resp, err := c.Firewalls.List(ctx(t), opt)
		if err != nil {
			t.Fatal(err)
		}
		for i := range list {
			if list[i].Name == name {
				found = &list[i]
			}
		}
		if resp.Links.IsLastPage() {
			break
		}
		page, _ := resp.Links.CurrentPage()
		opt.Page = page + 1
	}
	if found == nil || found.ID != fw.ID {
		t.Fatalf("%s not found by name in the list", name)
	}
	updated, _, err := c.Firewalls.Update(ctx(t), fw.ID, &godo.FirewallRequest{
		Name: name, InboundRules: []godo.InboundRule{nodePortRule("30080"), nodePortRule("all")}, Tags: []string{"k8s:c1"},
	})
	if err != nil || len(updated.InboundRules) != 2 || updated.InboundRules[1].PortRange != "0" || len(updated.InboundRules[1].Sources.Addresses) != 2 {
		t.Fatalf("update: %+v, %v", updated, err)
	}
	if got, _, err := c.Firewalls.Get(ctx(t), fw.ID); err != nil || len(got.InboundRules) != 2 {
		t.Fatalf("get after update: %+v, %v", got, err)
	}
	if _, err := c.Firewalls.Delete(ctx(t), fw.ID); err != nil {
		t.Fatal(err)
	}
	_, _, err = c.Firewalls.Get(ctx(t), fw.ID)
	if e := apiError(t, err); e.Response.StatusCode != http.StatusNotFound {
		t.Fatalf("after delete: %d", e.Response.StatusCode)
	}
}

func TestFirewallRulesWithTagSourcesAreRefusedNamingTheField(t *testing.T) {
	rule := godo.InboundRule{Protocol: "tcp", PortRange: "80", Sources: &godo.Sources{Tags: []string{"web"}}}
	_, _, err := client(t).Firewalls.Create(ctx(t), &godo.FirewallRequest{Name: simcloudtest.UniqueName("fw-bad"), InboundRules: []godo.InboundRule{rule}})
	if e := apiError(t, err); e.Response.StatusCode != http.StatusUnprocessableEntity || !strings.HasPrefix(e.Message, "inbound_rules.0.sources.tags") {
		t.Fatalf("%d %q", e.Response.StatusCode, e.Message)
	}
}

// DigitalOcean's CCM's firewall controller opens kube-proxy's health port to each REGIONAL_NETWORK load
// balancer by naming it in load_balancer_uids, and compares the addresses and load balancer UUIDs it reads
// back with what it wrote: they round-trip, and an unknown load balancer is refused naming the field.
func TestLoadBalancerSourcesOfTheCCMsFirewallRoundTrip(t *testing.T) {
	lb := createLB(t, networkLBRequest(simcloudtest.UniqueName("do-nlb-fw")))
	c := client(t)
	health := godo.InboundRule{Protocol: "tcp", PortRange: "10256", Sources: &godo.Sources{LoadBalancerUIDs: []string{lb.ID}}}
	req := &godo.FirewallRequest{Name: simcloudtest.UniqueName("k8s-public-access"), InboundRules: []godo.InboundRule{nodePortRule("80"), health}, Tags: []string{"k8s:c1"}}
	fw, _, err := c.Firewalls.Create(ctx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = c.Firewalls.Delete(ctx(t), fw.ID) })
	got, _, err := c.Firewalls.Get(ctx(t), fw.ID)
	if err != nil {
		t.Fatal(err)
	}
	if r := got.InboundRules; len(r) != 2 || r[1].PortRange != "10256" || r[1].Sources == nil || len(r[1].Sources.Addresses) != 0 ||
		strings.Join(r[1].Sources.LoadBalancerUIDs, ",") != lb.ID || strings.Join(r[0].Sources.Addresses, ",") != "0.0.0.0/0,::/0" {
		t.Fatalf("inbound rules: %+v %+v", r[0].Sources, r[len(r)-1].Sources)
	}
	req.InboundRules[1].Sources.LoadBalancerUIDs = []string{"00000000-0000-4000-8000-000099999999"}
	_, _, err = c.Firewalls.Update(ctx(t), fw.ID, req)
	if e := apiError(t, err); e.Response.StatusCode != http.StatusUnprocessableEntity || !strings.HasPrefix(e.Message, "inbound_rules.1.sources.load_balancer_uids.0") {
		t.Fatalf("unknown load balancer: %d %q", e.Response.StatusCode, e.Message)
	}
}
