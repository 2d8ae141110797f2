package linode

import (
	"net/http"
	"testing"
	"time"

	"github.com/linode/linodego/v2"
)

func TestAnErrorFaultOnSimcloudServersHitsLinodeInstances(t *testing.T) {
	c := client(t)
	in := createInstance(t, "fault-500")
	sim.AddFault(t, map[string]any{"kind": "error", "status": 500, "code": "server_error", "count": 1, "match": map[string]any{"method": "GET", "resource_type": "server"}})
	_, err := c.GetInstance(ctx(t), in.ID)
	if e := apiError(t, err); e.Code != http.StatusInternalServerError {
		t.Fatalf("first GET: %v, want 500", err)
	}
	if _, err := c.GetInstance(ctx(t), in.ID); err != nil {
		t.Fatalf("second GET (rule spent): %v", err)
	}
}

// linodego retries a 429 after the Retry-After the rate limit sends, so a CCM sees a slow call, not an error.
func TestLinodegoWaitsOutARateLimitAndSucceeds(t *testing.T) {
	c := client(t)
	in := createInstance(t, "rate-limited")
	sim.AddFault(t, map[string]any{"kind": "rate_limit", "limit": 1, "window_seconds": 1, "match": map[string]any{"path": "/v4/linode/instances/*"}})
	start := time.Now()
	for range 2 {
		if _, err := c.GetInstance(ctx(t), in.ID); err != nil {
			t.Fatalf("GetInstance under a 1/s limit: %v", err)
		}
	}
	if time.Since(start) < 200*time.Millisecond {
		t.Errorf("two calls under a 1/s limit took %v: the second was not limited", time.Since(start))
	}
	noRetry, err := NewClient(sim, sim.Token)
	if err != nil {
		t.Fatal(err)
	}
	noRetry.SetRetryCount(0)
	var last error
	for range 3 {
		_, last = noRetry.GetInstance(ctx(t), in.ID)
	}
	if !linodego.ErrHasStatus(last, http.StatusTooManyRequests) {
		t.Fatalf("without retries: %v, want 429", last)
	}
}

// An instance in the middle of an action is "Linode busy." with 400, as Linode answers, and linodego's own
// retry of that answer carries a delete through once the action ends.
func TestABusyInstanceIsLinodeBusyAndLinodegoRetriesIt(t *testing.T) {
	c := client(t)
	in := createInstance(t, "busy")
	waitStatus(t, in.ID, linodego.InstanceRunning)
	sim.AddFault(t, map[string]any{"kind": "stuck_transition", "match": map[string]any{"resource_type": "server"}})
	if err := c.ShutdownInstance(ctx(t), in.ID); err != nil {
		t.Fatal(err)
	}
	noRetry, err := NewClient(sim, sim.Token)
	if err != nil {
		t.Fatal(err)
	}
	noRetry.SetRetryCount(0)
	err = noRetry.DeleteInstance(ctx(t), in.ID)
	if e := apiError(t, err); e.Code != http.StatusBadRequest || e.Message != "Linode busy." {
		t.Fatalf("delete while shutting down: %v, want [400] Linode busy.", err)
	}
	var faults struct {
		Faults []struct {
			ID string `json:"id"`
		} `json:"faults"`
	}
	// Lift the stuck transition (this package's tests run one at a time, so every rule is this test's).
	sim.Do(t, "GET", "/_sim/faults", nil, &faults)
	for _, f := range faults.Faults {
		sim.Request(t, "DELETE", "/_sim/faults/"+f.ID, nil)
	}
	if err := c.DeleteInstance(ctx(t), in.ID); err != nil {
		t.Fatalf("delete with linodego's retries: %v", err)
	}
}
