package digitalocean

import (
	"fmt"
	"strings"
	"testing"

	"github.com/digitalocean/godo"

	"ccm-sandbox/go/internal/simcloudtest"
)

// A droplet's private address reads as a VPC address in 10.110.0.0/16 (godo's PrivateIPv4, what DigitalOcean's
// CCM writes as InternalIP); that address sent back as a firewall or load balancer source reaches the store
// as loopback, and reads back as sent.
func TestPrivateAddressesArePresentedInTheVPCBlockAndTakenBack(t *testing.T) {
	c := client(t)
	d := createDroplet(t, "do-vpc")
	waitDroplet(t, d.ID, "active")
	serverID := fmt.Sprintf("srv-%08d", d.ID)
	// The sandbox joins its droplets to the cluster network through /v1 (the persona has no VPCs).
	var attached struct {
		Action struct {
			ID string `json:"id"`
		} `json:"action"`
	}
	sim.Do(t, "POST", "/v1/servers/"+serverID+"/actions/attach_to_network", map[string]any{"network_id": sim.CreateNetwork(t, simcloudtest.UniqueName("net"))}, &attached)
	sim.WaitForAction(t, attached.Action.ID)
	got, _, err := c.Droplets.Get(ctx(t), d.ID)
	if err != nil {
		t.Fatal(err)
	}
	private, err := got.PrivateIPv4()
	if err != nil {
		t.Fatal(err)
	}
	var server struct {
		Server struct {
			PrivateNetworks []struct{ IP string } `json:"private_networks"`
		} `json:"server"`
	}
	sim.Do(t, "GET", "/v1/servers/"+serverID, nil, &server)
	if len(server.Server.PrivateNetworks) != 1 {
		t.Fatalf("private networks = %+v", server.Server.PrivateNetworks)
	}
	loopback := server.Server.PrivateNetworks[0].IP

	fw, _, err := c.Firewalls.Create(ctx(t), &godo.FirewallRequest{
		Name: simcloudtest.UniqueName("do-fw"), InboundRules: []godo.InboundRule{{Protocol: "tcp", PortRange: "80", Sources: &godo.Sources{Addresses: []string{private}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = c.Firewalls.Delete(ctx(t), fw.ID) })
	var policy struct {
		FirewallPolicy struct {
			Rules []struct {
				SourceCIDRs []string `json:"source_cidrs"`
			} `json:"rules"`
		} `json:"firewall_policy"`
	}
	sim.Do(t, "GET", "/v1/firewall_policies/fwp-"+fw.ID[len(fw.ID)-8:], nil, &policy)

	req := lbRequest(simcloudtest.UniqueName("do-vpc-lb"), d.ID)
	req.Firewall = &godo.LBFirewall{Allow: []string{"ip:" + private, "cidr:127.0.0.0/8"}}
	lb := waitActive(t, createLB(t, req).ID)
	var stored struct {
		LoadBalancer struct {
			SourceRanges []string `json:"source_ranges"`
		} `json:"load_balancer"`
	}
	sim.Do(t, "GET", "/v1/load_balancers/lb-"+lb.ID[len(lb.ID)-8:], nil, &stored)
	fwRead, _, err := c.Firewalls.Get(ctx(t), fw.ID)
	if err != nil {
		t.Fatal(err)
	}

	first := func(s []string) string {
		if len(s) == 0 {
			return ""
		}
		return strings.TrimSuffix(s[0], "/32")
	}
	storedRule := []string{}
	if len(policy.FirewallPolicy.Rules) == 1 {
		storedRule = policy.FirewallPolicy.Rules[0].SourceCIDRs
	}
	readRule := []string{}
	if len(fwRead.InboundRules) == 1 && fwRead.InboundRules[0].Sources != nil {
		readRule = fwRead.InboundRules[0].Sources.Addresses
	}
	for _, c := range []struct {
		what              string
		presented, stored string
	}{
		{"droplet private v4", private, loopback},
		{"firewall source", first(readRule), first(storedRule)},
		{"load balancer firewall allow", strings.TrimPrefix(first(lb.Firewall.Allow), "ip:"), first(stored.LoadBalancer.SourceRanges)},
	} {
		t.Run(c.what, func(t *testing.T) {
			if c.presented != private || c.stored != loopback || !simcloudtest.PresentedAs("10.110.0.0/16", c.presented, c.stored) {
				t.Errorf("%s reads %q and is stored as %q, want %s over %s (10.110.a.b over 127.X.a.b)", c.what, c.presented, c.stored, private, loopback)
			}
		})
	}
	if strings.Join(stored.LoadBalancer.SourceRanges, ",") != loopback+"/32,127.0.0.0/8" {
		t.Errorf("stored source ranges = %v, want the loopback address and 127.0.0.0/8 as sent", stored.LoadBalancer.SourceRanges)
	}
}
