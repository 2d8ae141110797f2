package simcloud

import (
	"context"
	"strings"
	"testing"

	"ccm-sandbox/go/internal/simcloudtest"
	"ccm-sandbox/go/provider/simcloud/client"
)

func TestAReadIsRetriedAfterAServerError(t *testing.T) {
	instances, _ := newTestCloud(t, "").InstancesV2()
	s := sim.CreateServer(t, unique("flaky"), simcloudtest.ServerOpts{})
	fired := sim.AddFault(t, map[string]any{"kind": "error", "status": 500, "code": "server_error", "count": 1, "match": map[string]any{"method": "GET", "path": "/v1/servers/" + s["id"].(string)}})
	exists, err := instances.InstanceExists(context.Background(), node("n", "simcloud://"+s["id"].(string)))
	if err != nil || !exists {
		t.Fatalf("InstanceExists = %v, %v; want true after one retry", exists, err)
	}
	if fired() != 1 {
		t.Errorf("the fault fired %d times, want 1", fired())
	}
}

func TestACreateIsNeverRepeatedAfterAServerError(t *testing.T) {
	lbs, _ := newTestCloud(t, "").LoadBalancer()
	svc := lbService(unique("once"), nil)
	fired := sim.AddFault(t, map[string]any{"kind": "error", "status": 500, "code": "server_error", "count": 2, "match": map[string]any{"method": "POST", "path": "/v1/server_groups"}})
	_, err := lbs.EnsureLoadBalancer(context.Background(), "test-cluster", svc, nil)
	if !client.HasCode(err, client.CodeServerError) {
		t.Fatalf("error %v, want the server_error", err)
	}
	if fired() != 1 {
		t.Fatalf("the POST was sent %d times, want once", fired())
	}
	t.Cleanup(func() { _ = lbs.EnsureLoadBalancerDeleted(context.Background(), "test-cluster", svc) })
}

func TestARateLimitedCreateWaitsForRetryAfterAndSucceeds(t *testing.T) {
	lbs, _ := newTestCloud(t, "").LoadBalancer()
	svc := lbService(unique("slow"), nil)
	fired := sim.AddFault(t, map[string]any{"kind": "error", "status": 429, "code": "rate_limit_exceeded", "retry_after_seconds": 1, "count": 1, "match": map[string]any{"method": "POST", "path": "/v1/load_balancers"}})
	status, err := lbs.EnsureLoadBalancer(context.Background(), "test-cluster", svc, nil)
	if err != nil || !strings.HasPrefix(status.Ingress[0].IP, "127.") {
		t.Fatalf("EnsureLoadBalancer = %+v, %v; want a VIP after one rate-limited attempt", status, err)
	}
	if fired() != 1 {
		t.Errorf("the fault fired %d times, want 1", fired())
	}
	if n := len(owned[client.LoadBalancer](t, "load_balancers", svc)); n != 1 {
		t.Errorf("%d load balancers, want 1", n)
	}
	if err := lbs.EnsureLoadBalancerDeleted(context.Background(), "test-cluster", svc); err != nil {
		t.Fatal(err)
	}
}
