package hcloud

import (
	"context"
	"testing"
)

func TestAnUnavailableAPIIsAnErrorNeverAMissingServer(t *testing.T) {
	instances, _ := newTestCloud(t, nil).InstancesV2()
	server := createServer(t, unique("flaky"), nil)
	fired := sim.AddFault(t, map[string]any{"kind": "error", "status": 503, "code": "service_unavailable", "count": 1, "match": map[string]any{"resource_type": "server", "method": "GET"}})
	n := node("n", providerID(server.ID))
	// The lifecycle controller deletes a Node on (false, nil): a failed read must say so.
	if exists, err := instances.InstanceExists(context.Background(), n); err == nil {
		t.Fatalf("InstanceExists = %v, nil during a 503; want an error", exists)
	}
	if exists, err := instances.InstanceExists(context.Background(), n); err != nil || !exists {
		t.Fatalf("InstanceExists = %v, %v once the API answers; want true", exists, err)
	}
	if fired() != 1 {
		t.Errorf("the fault fired %d times, want 1", fired())
	}
}

func TestARateLimitedCreateWaitsAndMakesOneLoadBalancer(t *testing.T) {
	lbs, _ := newTestCloud(t, nil).LoadBalancer()
	svc := lbService(nil)
	t.Cleanup(func() { _ = lbs.EnsureLoadBalancerDeleted(context.Background(), "c", svc) })
	fired := sim.AddFault(t, map[string]any{"kind": "error", "status": 429, "code": "rate_limit_exceeded", "retry_after_seconds": 1, "count": 1,
		"match": map[string]any{"resource_type": "load_balancer", "method": "POST"}})
	if _, err := lbs.EnsureLoadBalancer(context.Background(), "c", svc, nil); err != nil {
		t.Fatalf("EnsureLoadBalancer: %v; hcloud-go retries a rate-limited request", err)
	}
	if fired() != 1 {
		t.Errorf("the fault fired %d times, want 1", fired())
	}
	if owned(t, svc) == nil {
		t.Error("no load balancer")
	}
}
