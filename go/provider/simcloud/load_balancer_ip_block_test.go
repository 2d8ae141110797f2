package simcloud

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"ccm-sandbox/go/internal/simcloudtest"
	"ccm-sandbox/go/provider/simcloud/client"
)

// blocksOf lists the IP blocks tagged as the Service's.
func blocksOf(t *testing.T, svc *v1.Service) []client.IPBlock {
	t.Helper()
	var out map[string]json.RawMessage
	sim.Do(t, "GET", "/v1/ip_blocks?tags="+url.QueryEscape("service-uid="+string(svc.UID)), nil, &out)
	var blocks []client.IPBlock
	if err := json.Unmarshal(out["ip_blocks"], &blocks); err != nil {
		t.Fatal(err)
	}
	return blocks
}

func TestIPBlockStrategy(t *testing.T) {
	lbs, _ := newTestCloud(t, "", strategyIPBlock).LoadBalancer()
	ctx := context.Background()
	a := sim.CreateServer(t, unique("ipb-a"), simcloudtest.ServerOpts{})
	b := sim.CreateServer(t, unique("ipb-b"), simcloudtest.ServerOpts{})
	nodes := []*v1.Node{node(a["name"].(string), "simcloud://"+a["id"].(string)), node(b["name"].(string), "simcloud://"+b["id"].(string))}
	svc := lbService(unique("ipb"), nil)
	svc.Spec.LoadBalancerSourceRanges = []string{"127.0.0.0/8"}

	status, err := lbs.EnsureLoadBalancer(ctx, "test-cluster", svc, nodes)
	if err != nil {
		t.Fatal(err)
	}
	blocks := blocksOf(t, svc)
	lb := owned[client.LoadBalancer](t, "load_balancers", svc)
	if len(blocks) != 1 || len(lb) != 1 {
		t.Fatalf("%d blocks and %d load balancers, want one each", len(blocks), len(lb))
	}
	if got := blocks[0].Tags; got["usage"] != ipBlockUsage || got["cluster"] != "test-cluster" || got["service"] != "default."+svc.Name {
		t.Errorf("block tags %v", got)
	}
	if vip := blockVIP(blocks[0].CIDR); status.Ingress[0].IP != vip || lb[0].PublicIPv4 != vip || *lb[0].IPBlockID != blocks[0].ID {
		t.Errorf("VIP %s / %s, block %s (%s)", status.Ingress[0].IP, lb[0].PublicIPv4, blocks[0].CIDR, blocks[0].ID)
	}
	if len(lb[0].Targets) != 2 || lb[0].Targets[0].Kind != client.TargetServer || strings.Join(lb[0].SourceRanges, ",") != "127.0.0.0/8" {
		t.Errorf("targets %+v, source ranges %v", lb[0].Targets, lb[0].SourceRanges)
	}
	if n := len(owned[client.ServerGroup](t, "server_groups", svc)); n != 0 {
		t.Errorf("%d server groups with strategy ip-block", n)
	}

	if err := lbs.UpdateLoadBalancer(ctx, "test-cluster", svc, nodes[1:]); err != nil {
		t.Fatal(err)
	}
	if got := owned[client.LoadBalancer](t, "load_balancers", svc)[0].Targets; len(got) != 1 || got[0].ServerID != b["id"] {
		t.Errorf("targets after Update %+v, want only %s", got, b["id"])
	}
	if err := lbs.EnsureLoadBalancerDeleted(ctx, "test-cluster", svc); err != nil {
		t.Fatal(err)
	}
	if nb, nl := len(blocksOf(t, svc)), len(owned[client.LoadBalancer](t, "load_balancers", svc)); nb+nl != 0 {
		t.Errorf("%d blocks and %d load balancers left after deletion", nb, nl)
	}
}

func TestIPBlockStrategyAdoptsABlockByIDOrByLoadBalancerIP(t *testing.T) {
	lbs, _ := newTestCloud(t, "", strategyIPBlock).LoadBalancer()
	ctx := context.Background()
	allocate := func() client.IPBlock {
		var regions struct {
			Regions []struct{ ID string } `json:"regions"`
		}
		sim.Do(t, "GET", "/v1/regions", nil, &regions)
		var out struct {
			IPBlock client.IPBlock `json:"ip_block"`
		}
		sim.Do(t, "POST", "/v1/ip_blocks", map[string]any{"location": regions.Regions[0].ID, "tags": map[string]string{"team": "web"}}, &out)
		return out.IPBlock
	}
	byID, byIP := allocate(), allocate()
	adopted := lbService(unique("adopt"), map[string]string{AnnotationLoadBalancerID: byID.ID})
	fixed := lbService(unique("fixed"), nil)
	fixed.Spec.LoadBalancerIP = blockVIP(byIP.CIDR)
	for _, tc := range []struct {
		svc   *v1.Service
		block client.IPBlock
	}{{adopted, byID}, {fixed, byIP}} {
		status, err := lbs.EnsureLoadBalancer(ctx, "test-cluster", tc.svc, nil)
		if err != nil {
			t.Fatal(err)
		}
		if status.Ingress[0].IP != blockVIP(tc.block.CIDR) {
			t.Errorf("%s: ingress %s, want %s", tc.svc.Name, status.Ingress[0].IP, blockVIP(tc.block.CIDR))
		}
		blocks := blocksOf(t, tc.svc)
		if len(blocks) != 1 || blocks[0].ID != tc.block.ID || blocks[0].Tags["team"] != "web" {
			t.Errorf("%s: blocks %+v, want %s tagged as the Service's and keeping its tags", tc.svc.Name, blocks, tc.block.ID)
		}
		if _, exists, err := lbs.GetLoadBalancer(ctx, "test-cluster", tc.svc); !exists || err != nil {
			t.Errorf("%s: GetLoadBalancer exists=%v err=%v", tc.svc.Name, exists, err)
		}
		if err := lbs.EnsureLoadBalancerDeleted(ctx, "test-cluster", tc.svc); err != nil {
			t.Fatal(err)
		}
	}
	wrong := lbService(unique("wrong"), nil)
	wrong.Spec.LoadBalancerIP = "127.250.9.9"
	if _, err := lbs.EnsureLoadBalancer(ctx, "test-cluster", wrong, nil); err == nil || !strings.Contains(err.Error(), "is in no IP block of the project") {
		t.Errorf("a loadBalancerIP in no block: error %v", err)
	}
}
