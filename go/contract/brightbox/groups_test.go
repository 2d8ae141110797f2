package brightbox

import (
	"context"
	"net/http"
	"testing"

	brightbox "github.com/brightbox/gobrightbox/v2"

	"ccm-sandbox/go/internal/simcloudtest"
)

// createGroup makes a server group and destroys it when the test ends.
func createGroup(t *testing.T, c *brightbox.Client) *brightbox.ServerGroup {
	t.Helper()
	g := simcloudtest.Must(c.CreateServerGroup(ctx(t), brightbox.ServerGroupOptions{Name: ptr(simcloudtest.UniqueName("grp")), Description: ptr("contract")})).Get(t)
	t.Cleanup(func() { _, _ = c.DestroyServerGroup(context.Background(), g.ID) })
	return g
}

// Membership: servers added to a group show in the group and the group in each server; removing takes them out.
func TestServerGroupMembership(t *testing.T) {
	c := connect(t)
	a, b := createServer(t, c), createServer(t, c)
	g := createGroup(t, c)
	members := brightbox.ServerGroupMemberList{Servers: []brightbox.ServerGroupMember{{Server: a.ID}, {Server: b.ID}}}
	got := simcloudtest.Must(c.AddServersToServerGroup(ctx(t), g.ID, members)).Get(t)
	if len(got.Servers) != 2 || got.Servers[0].ID != a.ID || got.Description != "contract" {
		t.Fatalf("after add: %+v", got)
	}
	if s := simcloudtest.Must(c.Server(ctx(t), a.ID)).Get(t); len(s.ServerGroups) != 1 || s.ServerGroups[0].ID != g.ID {
		t.Errorf("server's groups %+v", s.ServerGroups)
	}
	got = simcloudtest.Must(c.RemoveServersFromServerGroup(ctx(t), g.ID, brightbox.ServerGroupMemberList{Servers: members.Servers[:1]})).Get(t)
	if len(got.Servers) != 1 || got.Servers[0].ID != b.ID {
		t.Fatalf("after remove: %+v", got.Servers)
	}
	list := simcloudtest.Must(c.ServerGroups(ctx(t))).Get(t)
	if !containsID(list, g.ID, func(x brightbox.ServerGroup) string { return x.ID }) {
		t.Errorf("%s not listed", g.ID)
	}
	if out, err := c.DestroyServerGroup(ctx(t), g.ID); err != nil || out.ID != g.ID {
		t.Fatalf("destroy: %v", err)
	}
	_, err := c.ServerGroup(ctx(t), g.ID)
	apiError(t, err, http.StatusNotFound)
}

// Adding a server that does not exist is 404 missing_resource, naming the member's field.
func TestAddingAMissingServerNamesTheMember(t *testing.T) {
	c := connect(t)
	g := createGroup(t, c)
	_, err := c.AddServersToServerGroup(ctx(t), g.ID, brightbox.ServerGroupMemberList{Servers: []brightbox.ServerGroupMember{{Server: "srv-zzzzz"}}})
	e := apiError(t, err, http.StatusNotFound)
	if e.ErrorName != "missing_resource" || !hasPrefix(e.Errors, "servers.0.server: server srv-zzzzz not found") {
		t.Fatalf("%d %q %q", e.StatusCode, e.ErrorName, e.Errors)
	}
}

// A firewall policy made for a server group is applied to it (both sides show it); its rules are Brightbox's,
// created, read, updated and destroyed one by one; destroying the group leaves the policy unapplied.
func TestAFirewallPolicyAndItsRules(t *testing.T) {
	c := connect(t)
	g := createGroup(t, c)
	p := simcloudtest.Must(c.CreateFirewallPolicy(ctx(t), brightbox.FirewallPolicyOptions{
		Name: ptr(simcloudtest.UniqueName("fwp")), Description: ptr("contract"), FirewallPolicyAttachment: &brightbox.FirewallPolicyAttachment{ServerGroup: g.ID},
	})).Get(t)
	t.Cleanup(func() { _, _ = c.DestroyFirewallPolicy(context.Background(), p.ID) })
	if p.ServerGroup == nil || p.ServerGroup.ID != g.ID || p.Description != "contract" || len(p.Rules) != 0 {
		t.Fatalf("policy %+v", p)
	}
	if got := simcloudtest.Must(c.ServerGroup(ctx(t), g.ID)).Get(t); got.FirewallPolicy == nil || got.FirewallPolicy.ID != p.ID {
		t.Fatalf("group's policy %+v", got.FirewallPolicy)
	}
	rules := []brightbox.FirewallRuleOptions{
		{FirewallPolicy: p.ID, Protocol: ptr("tcp"), Source: ptr("any"), DestinationPort: ptr("80,443"), Description: ptr("web")},
		{FirewallPolicy: p.ID, Protocol: ptr("icmp"), Source: ptr("10.0.0.0/8"), IcmpTypeName: ptr("echo-request")},
		{FirewallPolicy: p.ID, Destination: ptr("any")},
	}
	var ids []string
	for _, r := range rules {
		got := simcloudtest.Must(c.CreateFirewallRule(ctx(t), r)).Get(t)
		if got.FirewallPolicy == nil || got.FirewallPolicy.ID != p.ID || got.Protocol != deref(r.Protocol) || got.DestinationPort != deref(r.DestinationPort) || got.CreatedAt == nil {
			t.Errorf("rule %+v", got)
		}
		ids = append(ids, got.ID)
	}
	if got := simcloudtest.Must(c.FirewallRule(ctx(t), ids[1])).Get(t); got.IcmpTypeName != "echo-request" || got.Source != "10.0.0.0/8" {
		t.Errorf("get rule %+v", got)
	}
	up := simcloudtest.Must(c.UpdateFirewallRule(ctx(t), brightbox.FirewallRuleOptions{ID: ids[0], DestinationPort: ptr("8080")})).Get(t)
	if up.DestinationPort != "8080" || up.Protocol != "tcp" || up.Description != "web" {
		t.Errorf("updated rule %+v", up)
	}
	simcloudtest.Must(c.DestroyFirewallRule(ctx(t), ids[2])).Get(t)
	got := simcloudtest.Must(c.FirewallPolicy(ctx(t), p.ID)).Get(t)
	if len(got.Rules) != 2 || got.Rules[0].DestinationPort != "8080" {
		t.Errorf("policy's rules %+v", got.Rules)
	}
	_, err := c.FirewallRule(ctx(t), ids[2])
	apiError(t, err, http.StatusNotFound)
	list := simcloudtest.Must(c.FirewallPolicies(ctx(t))).Get(t)
	if !containsID(list, p.ID, func(x brightbox.FirewallPolicy) string { return x.ID }) {
		t.Errorf("%s not listed", p.ID)
	}
	simcloudtest.Must(c.DestroyServerGroup(ctx(t), g.ID)).Get(t)
	if got := simcloudtest.Must(c.FirewallPolicy(ctx(t), p.ID)).Get(t); got.ServerGroup != nil {
		t.Errorf("policy still on %+v", got.ServerGroup)
	}
	simcloudtest.Must(c.DestroyFirewallPolicy(ctx(t), p.ID)).Get(t)
	_, err = c.FirewallPolicy(ctx(t), p.ID)
	apiError(t, err, http.StatusNotFound)
}

// A rule cannot move to another policy: 400 naming firewall_policy.
func TestARuleStaysInItsPolicy(t *testing.T) {
	c := connect(t)
	mk := func() *brightbox.FirewallPolicy {
		p := simcloudtest.Must(c.CreateFirewallPolicy(ctx(t), brightbox.FirewallPolicyOptions{Name: ptr(simcloudtest.UniqueName("fwp"))})).Get(t)
		t.Cleanup(func() { _, _ = c.DestroyFirewallPolicy(context.Background(), p.ID) })
		return p
	}
	a, b := mk(), mk()
	r := simcloudtest.Must(c.CreateFirewallRule(ctx(t), brightbox.FirewallRuleOptions{FirewallPolicy: a.ID, Source: ptr("any")})).Get(t)
	_, err := c.UpdateFirewallRule(ctx(t), brightbox.FirewallRuleOptions{ID: r.ID, FirewallPolicy: b.ID})
	if e := apiError(t, err, http.StatusBadRequest); !hasPrefix(e.Errors, "firewall_policy: ") {
		t.Fatalf("%q", e.Errors)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func containsID[T any](list []T, id string, idOf func(T) string) bool {
	for _, x := range list {
		if idOf(x) == id {
			return true
		}
	}
	return false
}
