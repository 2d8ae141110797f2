package digitalocean

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/digitalocean/godo"

	"ccm-sandbox/go/internal/providerkit/poll"
	"ccm-sandbox/go/internal/simcloudtest"
)

func ptr[T any](v T) *T { return &v }

// lbRequest is a load balancer request as the DigitalOcean CCM builds one for a Service with a NodePort.
func lbRequest(name string, dropletIDs ...int) *godo.LoadBalancerRequest {
	return &godo.LoadBalancerRequest{
		Name: name, Region: "sim-1", SizeUnit: 1, Algorithm: "round_robin",
		ForwardingRules: []godo.ForwardingRule{{EntryProtocol: "tcp", EntryPort: 80, TargetProtocol: "tcp", TargetPort: 30080}},
		HealthCheck: &godo.HealthCheck{
			Protocol: "tcp", Port: 30080, CheckIntervalSeconds: 3, ResponseTimeoutSeconds: 5, HealthyThreshold: 5, UnhealthyThreshold: 3,
		},
		StickySessions:      &godo.StickySessions{Type: "cookies", CookieName: "DO-CCM", CookieTtlSeconds: 300},
		DropletIDs:          dropletIDs,
		EnableProxyProtocol: true,
		Firewall:            &godo.LBFirewall{Allow: []string{"cidr:127.0.0.0/8"}},
	}
}

func createLB(t *testing.T, req *godo.LoadBalancerRequest) *godo.LoadBalancer {
	t.Helper()
	c := client(t)
	lb, _, err := c.LoadBalancers.Create(ctx(t), req)
	if err != nil {
		t.Fatalf("create load balancer: %v", err)
	}
	t.Cleanup(func() { _, _ = c.LoadBalancers.Delete(ctx(t), lb.ID) })
	return lb
}

func waitActive(t *testing.T, id string) *godo.LoadBalancer {
	t.Helper()
	var lb *godo.LoadBalancer
	poll.Eventually(t, "load balancer active", func() error {
		var err error
		if lb, _, err = client(t).LoadBalancers.Get(ctx(t), id); err != nil {
			return err
		}
		if lb.Status != "active" {
			return fmt.Errorf("status %s", lb.Status)
		}
		return nil
	})
	return lb
}

func TestALoadBalancerIsNewWithoutAnIPThenActiveOnItsVIPWithEverySetting(t *testing.T) {
	d := createDroplet(t, "do-lb-target")
	lb := createLB(t, lbRequest(simcloudtest.UniqueName("do-lb"), d.ID))
	if lb.Status != "new" || lb.IP != "" || len(lb.ID) != 36 {
		t.Fatalf("created: status %q ip %q id %q", lb.Status, lb.IP, lb.ID)
	}
	got := waitActive(t, lb.ID)
	if got.IP == "" || got.Region == nil || got.Region.Slug != "sim-1" || got.SizeUnit != 1 || got.Algorithm != "round_robin" {
		t.Fatalf("active: %+v", got)
	}
	rule := got.ForwardingRules
	if len(rule) != 1 || rule[0].EntryPort != 80 || rule[0].TargetPort != 30080 || rule[0].EntryProtocol != "tcp" {
		t.Errorf("forwarding rules: %+v", rule)
	}
	hc := got.HealthCheck
	if hc == nil || hc.Protocol != "tcp" || hc.Port != 30080 || hc.CheckIntervalSeconds != 3 || hc.ResponseTimeoutSeconds != 5 || hc.HealthyThreshold != 5 || hc.UnhealthyThreshold != 3 {
		t.Errorf("health check: %+v", hc)
	}
	if s := got.StickySessions; s == nil || s.Type != "cookies" || s.CookieName != "DO-CCM" || s.CookieTtlSeconds != 300 {
		t.Errorf("sticky sessions: %+v", s)
	}
	if !got.EnableProxyProtocol || len(got.DropletIDs) != 1 || got.DropletIDs[0] != d.ID {
		t.Errorf("proxy %v droplets %v", got.EnableProxyProtocol, got.DropletIDs)
	}
	if got.Firewall == nil || len(got.Firewall.Allow) != 1 || got.Firewall.Allow[0] != "cidr:127.0.0.0/8" {
		t.Errorf("firewall: %+v", got.Firewall)
	}
}

// The DigitalOcean CCM sends the whole desired load balancer on every sync (PUT).
func TestUpdateReplacesTheWholeLoadBalancer(t *testing.T) {
	c := client(t)
	a, b := createDroplet(t, "do-lb-a"), createDroplet(t, "do-lb-b")
	lb := createLB(t, lbRequest(simcloudtest.UniqueName("do-lb-put"), a.ID))
	req := lbRequest(lb.Name, b.ID)
	req.ForwardingRules = []godo.ForwardingRule{{EntryProtocol: "http", EntryPort: 8080, TargetProtocol: "http", TargetPort: 30090}}
	req.HealthCheck = &godo.HealthCheck{Protocol: "http", Port: 30090, Path: "/healthz", CheckIntervalSeconds: 5, ResponseTimeoutSeconds: 3, HealthyThreshold: 2, UnhealthyThreshold: 2}
	req.StickySessions, req.EnableProxyProtocol, req.Algorithm = nil, false, "least_connections"
	got, _, err := c.LoadBalancers.Update(ctx(t), lb.ID, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.ForwardingRules) != 1 || got.ForwardingRules[0].EntryPort != 8080 || got.ForwardingRules[0].EntryProtocol != "http" {
		t.Errorf("rules: %+v", got.ForwardingRules)
	}
	if got.HealthCheck.Path != "/healthz" || got.HealthCheck.Protocol != "http" || got.EnableProxyProtocol || got.StickySessions.Type != "none" || got.Algorithm != "least_connections" {
		t.Errorf("settings: hc %+v proxy %v sticky %+v algorithm %s", got.HealthCheck, got.EnableProxyProtocol, got.StickySessions, got.Algorithm)
	}
	if len(got.DropletIDs) != 1 || got.DropletIDs[0] != b.ID {
		t.Errorf("droplets: %v, want [%d]", got.DropletIDs, b.ID)
	}
	req.Region = "sim-2"
	_, _, err = c.LoadBalancers.Update(ctx(t), lb.ID, req)
	if e := apiError(t, err); e.Response.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("changing region: %d %s", e.Response.StatusCode, e.Message)
	}
}

func TestForwardingRulesAndDropletsAreAddedAndRemoved(t *testing.T) {
	c := client(t)
	a, b := createDroplet(t, "do-lb-c"), createDroplet(t, "do-lb-d")
	lb := createLB(t, lbRequest(simcloudtest.UniqueName("do-lb-sub"), a.ID))
	extra := godo.ForwardingRule{EntryProtocol: "tcp", EntryPort: 443, TargetProtocol: "tcp", TargetPort: 30443}
	if _, err := c.LoadBalancers.AddForwardingRules(ctx(t), lb.ID, extra); err != nil {
		t.Fatal(err)
	}
	if _, err := c.LoadBalancers.AddDroplets(ctx(t), lb.ID, b.ID); err != nil {
		t.Fatal(err)
	}
	got, _, _ := c.LoadBalancers.Get(ctx(t), lb.ID)
	if len(got.ForwardingRules) != 2 || len(got.DropletIDs) != 2 {
		t.Fatalf("after adding: rules %+v droplets %v", got.ForwardingRules, got.DropletIDs)
	}
	_, err := c.LoadBalancers.AddForwardingRules(ctx(t), lb.ID, extra)
	if e := apiError(t, err); e.Response.StatusCode != http.StatusUnprocessableEntity || e.Message == "" {
		t.Fatalf("a used entry port: %d %q", e.Response.StatusCode, e.Message)
	}
	if _, err := c.LoadBalancers.RemoveForwardingRules(ctx(t), lb.ID, extra); err != nil {
		t.Fatal(err)
	}
	if _, err := c.LoadBalancers.RemoveDroplets(ctx(t), lb.ID, a.ID); err != nil {
		t.Fatal(err)
	}
	got, _, _ = c.LoadBalancers.Get(ctx(t), lb.ID)
	if len(got.ForwardingRules) != 1 || got.ForwardingRules[0].EntryPort != 80 || len(got.DropletIDs) != 1 || got.DropletIDs[0] != b.ID {
		t.Fatalf("after removing: rules %+v droplets %v", got.ForwardingRules, got.DropletIDs)
	}
}

func TestATagBasedLoadBalancerTargetsTheTaggedDroplets(t *testing.T) {
	tag := "k8s:" + simcloudtest.UniqueName("c")
	d := createDroplet(t, "do-lb-tagged", tag)
	createDroplet(t, "do-lb-untagged")
	req := lbRequest(simcloudtest.UniqueName("do-lb-tag"))
	req.Tag = tag
	lb := createLB(t, req)
	got, _, err := client(t).LoadBalancers.Get(ctx(t), lb.ID)
	if err != nil || got.Tag != tag || len(got.DropletIDs) != 1 || got.DropletIDs[0] != d.ID {
		t.Fatalf("tag %q droplets %v, %v", got.Tag, got.DropletIDs, err)
	}
	_, err = client(t).LoadBalancers.AddDroplets(ctx(t), lb.ID, d.ID)
	if e := apiError(t, err); e.Response.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("droplet ids on a tag-based LB: %d", e.Response.StatusCode)
	}
}

func TestListGetAndDeleteLoadBalancers(t *testing.T) {
	c := client(t)
	lb := createLB(t, lbRequest(simcloudtest.UniqueName("do-lb-list")))
	found := false
	opt := &godo.ListOptions{PerPage: 1}
	for {
		lbs, resp, err := c.LoadBalancers.List(ctx(t), opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range lbs {
			found = found || x.ID == lb.ID
		}
		if resp.Links.IsLastPage() {
			break
		}
		page, _ := resp.Links.CurrentPage()
		opt.Page = page + 1
	}
	if !found {
		t.Fatalf("%s not in the list", lb.ID)
	}
	if _, err := c.LoadBalancers.Delete(ctx(t), lb.ID); err != nil {
		t.Fatal(err)
	}
	_, _, err := c.LoadBalancers.Get(ctx(t), lb.ID)
	if e := apiError(t, err); e.Response.StatusCode != http.StatusNotFound {
		t.Fatalf("after delete: %d", e.Response.StatusCode)
	}
	_, _, err = c.LoadBalancers.Get(ctx(t), "not-a-uuid")
	if e := apiError(t, err); e.Response.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown id: %d", e.Response.StatusCode)
	}
}

func TestRefusedSettingsNameTheirField(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(r *godo.LoadBalancerRequest)
		field string
	}{
		{"udp to tcp", func(r *godo.LoadBalancerRequest) { r.ForwardingRules[0].EntryProtocol = "udp" }, "forwarding_rules.0.target_protocol"},
		{"region", func(r *godo.LoadBalancerRequest) { r.Region = "nyc3" }, "region"},
		{"deny", func(r *godo.LoadBalancerRequest) { r.Firewall.Deny = []string{"ip:127.0.0.9"} }, "firewall.deny"},
		{"tag and droplets", func(r *godo.LoadBalancerRequest) { r.Tag, r.DropletIDs = "x", []int{1} }, "tag"},
		{"unknown droplet", func(r *godo.LoadBalancerRequest) { r.DropletIDs = []int{987654} }, "droplet_ids.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := lbRequest(simcloudtest.UniqueName("do-lb-bad"))
			tc.edit(req)
			_, _, err := client(t).LoadBalancers.Create(ctx(t), req)
			e := apiError(t, err)
			if e.Response.StatusCode/100 != 4 || len(e.Message) < len(tc.field) || e.Message[:len(tc.field)] != tc.field {
				t.Fatalf("%d %q, want a 4xx naming %s", e.Response.StatusCode, e.Message, tc.field)
			}
		})
	}
}
