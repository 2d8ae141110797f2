package linode

import (
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/linode/linodego/v2"
)

func ptr[T any](v T) *T { return &v }

func region(t *testing.T) string {
	t.Helper()
	regions, err := client(t).ListRegions(ctx(t), nil)
	if err != nil || len(regions) == 0 {
		t.Fatalf("ListRegions: %v", err)
	}
	return regions[0].ID
}

func node(address, label string) linodego.NodeBalancerNodeCreateOptions {
	return linodego.NodeBalancerNodeCreateOptions{Address: address, Label: label, Weight: 100, Mode: linodego.ModeAccept}
}

// createNB creates a NodeBalancer the way the Linode CCM does: label, tags and every port's config with
// its nodes in one call.
func createNB(t *testing.T, label string) *linodego.NodeBalancer {
	t.Helper()
	c := client(t)
	nb, err := c.CreateNodeBalancer(ctx(t), linodego.NodeBalancerCreateOptions{
		Label: ptr(label), Region: region(t), Tags: []string{"kubernetes", "cluster=sim"}, ClientConnThrottle: ptr(20),
		Configs: []linodego.NodeBalancerConfigCreateOptions{{
			Port: 80, Protocol: linodego.ProtocolTCP, ProxyProtocol: linodego.ProxyProtocolV2, Algorithm: linodego.AlgorithmRoundRobin,
			Check: linodego.CheckConnection, CheckInterval: 5, CheckTimeout: 3, CheckAttempts: 2,
			Nodes: []linodego.NodeBalancerNodeCreateOptions{node("10.0.0.1:30080", "node-a"), node("10.0.0.2:30080", "node-b")},
		}},
	})
	if err != nil {
		t.Fatalf("CreateNodeBalancer(%s): %v", label, err)
	}
	t.Cleanup(func() { _ = c.DeleteNodeBalancer(ctx(t), nb.ID) })
	return nb
}

func addresses(nodes []linodego.NodeBalancerNode) []string {
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		out = append(out, n.Address)
	}
	sort.Strings(out)
	return out
}

func TestNodeBalancerCreateGetListUpdateDelete(t *testing.T) {
	c := client(t)
	nb := createNB(t, "svc-a")
	if nb.IPv4 == nil || *nb.IPv4 == "" || nb.Hostname == nil || nb.Label == nil || *nb.Label != "svc-a" || nb.ClientConnThrottle != 20 || nb.Created == nil {
		t.Fatalf("created %+v", nb)
	}
	if !slices.Contains(nb.Tags, "kubernetes") || !slices.Contains(nb.Tags, "cluster=sim") {
		t.Errorf("tags %v", nb.Tags)
	}
	got, err := c.GetNodeBalancer(ctx(t), nb.ID)
	if err != nil || *got.IPv4 != *nb.IPv4 {
		t.Fatalf("GetNodeBalancer = %+v, %v", got, err)
	}
	byIP, err := c.ListNodeBalancers(ctx(t), &linodego.ListOptions{Filter: `{"ipv4": "` + *nb.IPv4 + `"}`})
	if err != nil || len(byIP) != 1 || byIP[0].ID != nb.ID {
		t.Fatalf("ipv4 filter = %v, %v", byIP, err)
	}
	up, err := c.UpdateNodeBalancer(ctx(t), nb.ID, linodego.NodeBalancerUpdateOptions{Label: ptr("svc-a-renamed"), Tags: []string{"kubernetes"}, ClientConnThrottle: ptr(5)})
	if err != nil || *up.Label != "svc-a-renamed" || len(up.Tags) != 1 || up.ClientConnThrottle != 5 {
		t.Fatalf("UpdateNodeBalancer = %+v, %v", up, err)
	}
	fws, err := c.ListNodeBalancerFirewalls(ctx(t), nb.ID, nil)
	if err != nil || len(fws) != 0 {
		t.Fatalf("ListNodeBalancerFirewalls = %v, %v", fws, err)
	}
	if err := c.DeleteNodeBalancer(ctx(t), nb.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetNodeBalancer(ctx(t), nb.ID); !linodego.IsNotFound(err) {
		t.Fatalf("after delete: %v, want 404", err)
	}
}

// byIPv4 lists the NodeBalancers on ip with the X-Filter Linode's CCM (getNodeBalancerByIP) and its e2e
// suite's get-nb-id.sh send.
func byIPv4(t *testing.T, ip string) []int {
	t.Helper()
	nbs, err := client(t).ListNodeBalancers(ctx(t), &linodego.ListOptions{Filter: `{"ipv4": "` + ip + `"}`})
	if err != nil {
		t.Fatalf("ListNodeBalancers(ipv4=%s): %v", ip, err)
	}
	ids := make([]int, 0, len(nbs))
	for _, nb := range nbs {
		ids = append(ids, nb.ID)
	}
	return ids
}

// Moving a Service to another NodeBalancer (the nodebalancer-id annotation): Linode's CCM deletes the old one
// inside EnsureLoadBalancer, before cloud-provider writes the new address to the Service's status. As on
// Linode, the old one leaves the ipv4 filter and answers 404 once its DELETE is answered, and its address is
// not handed to the next NodeBalancer, so a status still naming it never resolves to another one.
func TestNodeBalancerReplacedByAnotherIsGoneFromItsAddress(t *testing.T) {
	c := client(t)
	old := createNB(t, "svc-old")
	replacement, err := c.CreateNodeBalancer(ctx(t), linodego.NodeBalancerCreateOptions{Label: ptr("svc-new"), Region: region(t)})
	if err != nil {
		t.Fatalf("CreateNodeBalancer: %v", err)
	}
	t.Cleanup(func() { _ = c.DeleteNodeBalancer(ctx(t), replacement.ID) })
	if replacement.IPv4 == nil || *replacement.IPv4 == *old.IPv4 {
		t.Fatalf("the new NodeBalancer's ipv4 = %v, want its own address at creation (old: %s)", replacement.IPv4, *old.IPv4)
	}
	if got := byIPv4(t, *old.IPv4); !slices.Equal(got, []int{old.ID}) {
		t.Fatalf("before the delete, ipv4 filter on the old address = %v, want [%d]", got, old.ID)
	}
	if err := c.DeleteNodeBalancer(ctx(t), old.ID); err != nil {
		t.Fatal(err)
	}
	if got := byIPv4(t, *old.IPv4); len(got) != 0 {
		t.Errorf("after the delete, ipv4 filter on the old address = %v, want none", got)
	}
	if _, err := c.GetNodeBalancer(ctx(t), old.ID); !linodego.IsNotFound(err) {
		t.Errorf("GET of the old NodeBalancer after its delete: %v, want 404", err)
	}
	if got := byIPv4(t, *replacement.IPv4); !slices.Equal(got, []int{replacement.ID}) {
		t.Errorf("ipv4 filter on the new address = %v, want [%d]", got, replacement.ID)
	}
	next := createNB(t, "svc-next")
	if *next.IPv4 == *old.IPv4 {
		t.Errorf("a NodeBalancer created right after the delete got the old address %s", *old.IPv4)
	}
}

func TestNodeBalancerConfigKeepsItsSettingsAndNodes(t *testing.T) {
	c := client(t)
	nb := createNB(t, "svc-configs")
	cfgs, err := c.ListNodeBalancerConfigs(ctx(t), nb.ID, nil)
	if err != nil || len(cfgs) != 1 {
		t.Fatalf("ListNodeBalancerConfigs = %v, %v", cfgs, err)
	}
	cfg := cfgs[0]
	if cfg.Port != 80 || cfg.Protocol != linodego.ProtocolTCP || cfg.ProxyProtocol != linodego.ProxyProtocolV2 || cfg.Check != linodego.CheckConnection ||
		cfg.CheckInterval != 5 || cfg.CheckTimeout != 3 || cfg.CheckAttempts != 2 || cfg.NodeBalancerID != nb.ID || cfg.NodesStatus == nil {
		t.Errorf("config %+v", cfg)
	}
	nodes, err := c.ListNodeBalancerNodes(ctx(t), nb.ID, cfg.ID, nil)
	if err != nil || !slices.Equal(addresses(nodes), []string{"10.0.0.1:30080", "10.0.0.2:30080"}) || nodes[0].ConfigID != cfg.ID {
		t.Fatalf("ListNodeBalancerNodes = %+v, %v", nodes, err)
	}
	second, err := c.CreateNodeBalancerConfig(ctx(t), nb.ID, linodego.NodeBalancerConfigCreateOptions{
		Port: 443, Protocol: linodego.ProtocolHTTP, Check: linodego.CheckHTTP, CheckPath: "/healthz", Stickiness: linodego.StickinessHTTPCookie,
		Nodes: []linodego.NodeBalancerNodeCreateOptions{node("10.0.0.1:30443", "node-a")},
	})
	if err != nil || second.Port != 443 || second.CheckPath != "/healthz" || second.Stickiness != linodego.StickinessHTTPCookie {
		t.Fatalf("CreateNodeBalancerConfig = %+v, %v", second, err)
	}
	upd, err := c.UpdateNodeBalancerConfig(ctx(t), nb.ID, second.ID, linodego.NodeBalancerConfigUpdateOptions{Port: 443, CheckPath: "/ready", Algorithm: linodego.AlgorithmLeastConn})
	if err != nil || upd.CheckPath != "/ready" || upd.Algorithm != linodego.AlgorithmLeastConn || upd.Protocol != linodego.ProtocolHTTP {
		t.Fatalf("UpdateNodeBalancerConfig = %+v, %v", upd, err)
	}
	if err := c.DeleteNodeBalancerConfig(ctx(t), nb.ID, second.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetNodeBalancerConfig(ctx(t), nb.ID, second.ID); !linodego.IsNotFound(err) {
		t.Fatalf("deleted config: %v, want 404", err)
	}
}

// The Linode CCM's update path: rebuild each config with the nodes it wants, reusing the ids of nodes it
// keeps; nodes it leaves out are removed.
func TestNodeBalancerRebuildKeepsNamedNodesAndDropsTheRest(t *testing.T) {
	c := client(t)
	nb := createNB(t, "svc-rebuild")
	cfgs, err := c.ListNodeBalancerConfigs(ctx(t), nb.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	before, err := c.ListNodeBalancerNodes(ctx(t), nb.ID, cfgs[0].ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	var keep linodego.NodeBalancerNode
	for _, n := range before {
		if n.Address == "10.0.0.1:30080" {
			keep = n
		}
	}
	opts := cfgs[0].GetRebuildOptions()
	opts.Nodes = []linodego.NodeBalancerConfigRebuildNodeOptions{
		{NodeBalancerNodeCreateOptions: node("10.0.0.1:30080", "node-a"), ID: keep.ID},
		{NodeBalancerNodeCreateOptions: node("10.0.0.3:30080", "node-c")},
	}
	opts.ProxyProtocol = linodego.ProxyProtocolNone
	got, err := c.RebuildNodeBalancerConfig(ctx(t), nb.ID, cfgs[0].ID, opts)
	if err != nil || got.ProxyProtocol != linodego.ProxyProtocolNone || got.ID != cfgs[0].ID {
		t.Fatalf("RebuildNodeBalancerConfig = %+v, %v", got, err)
	}
	after, err := c.ListNodeBalancerNodes(ctx(t), nb.ID, cfgs[0].ID, nil)
	if err != nil || !slices.Equal(addresses(after), []string{"10.0.0.1:30080", "10.0.0.3:30080"}) {
		t.Fatalf("after rebuild: %+v, %v", after, err)
	}
	for _, n := range after {
		if n.Address == "10.0.0.1:30080" && n.ID != keep.ID {
			t.Errorf("kept node got id %d, want %d", n.ID, keep.ID)
		}
	}
}

func TestNodeBalancerNodeCRUD(t *testing.T) {
	c := client(t)
	nb := createNB(t, "svc-nodes")
	cfgs, err := c.ListNodeBalancerConfigs(ctx(t), nb.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	cid := cfgs[0].ID
	n, err := c.CreateNodeBalancerNode(ctx(t), nb.ID, cid, node("10.0.0.9:30080", "node-z"))
	if err != nil || n.Address != "10.0.0.9:30080" || n.Mode != linodego.ModeAccept || n.NodeBalancerID != nb.ID {
		t.Fatalf("CreateNodeBalancerNode = %+v, %v", n, err)
	}
	u, err := c.UpdateNodeBalancerNode(ctx(t), nb.ID, cid, n.ID, linodego.NodeBalancerNodeUpdateOptions{Mode: linodego.ModeDrain, Weight: 7})
	if err != nil || u.Mode != linodego.ModeDrain || u.Weight != 7 || u.Address != n.Address {
		t.Fatalf("UpdateNodeBalancerNode = %+v, %v", u, err)
	}
	g, err := c.GetNodeBalancerNode(ctx(t), nb.ID, cid, n.ID)
	if err != nil || g.Weight != 7 {
		t.Fatalf("GetNodeBalancerNode = %+v, %v", g, err)
	}
	if err := c.DeleteNodeBalancerNode(ctx(t), nb.ID, cid, n.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetNodeBalancerNode(ctx(t), nb.ID, cid, n.ID); !linodego.IsNotFound(err) {
		t.Fatalf("deleted node: %v, want 404", err)
	}
}

func TestNodeBalancerErrorsNameTheField(t *testing.T) {
	c := client(t)
	cases := []struct {
		name  string
		opts  linodego.NodeBalancerCreateOptions
		field string
	}{
		{"unknown region", linodego.NodeBalancerCreateOptions{Region: "nowhere-1"}, "[region]"},
		{"short label", linodego.NodeBalancerCreateOptions{Region: region(t), Label: ptr("x")}, "[label]"},
		{"node without port", linodego.NodeBalancerCreateOptions{Region: region(t), Configs: []linodego.NodeBalancerConfigCreateOptions{{
			Port: 80, Nodes: []linodego.NodeBalancerNodeCreateOptions{node("10.0.0.1", "n1")},
		}}}, "[configs.0.nodes.0.address]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.CreateNodeBalancer(ctx(t), tc.opts)
			if e := apiError(t, err); e.Code != http.StatusBadRequest || !strings.Contains(e.Message, tc.field) {
				t.Fatalf("%v, want 400 naming %s", err, tc.field)
			}
		})
	}
	nb := createNB(t, "svc-errors")
	if _, err := c.GetNodeBalancerConfig(ctx(t), nb.ID, 424242); !linodego.IsNotFound(err) {
		t.Fatalf("missing config: %v, want 404", err)
	}
}
