package digitalocean

import (
	"net/http"
	"testing"
	"time"
)

// godo reads RateLimit-Limit/-Remaining/-Reset into Response.Rate (Reset as a Unix time).
func TestRateLimitHeadersAreParsedIntoGodosRate(t *testing.T) {
	d := createDroplet(t, "do-rate")
	sim.AddFault(t, map[string]any{"kind": "rate_limit", "limit": 2, "window_seconds": 60, "match": map[string]any{"path": "/v2/droplets/*"}})
	c := client(t)
	_, resp, err := c.Droplets.Get(ctx(t), d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Rate.Limit != 2 || resp.Rate.Remaining != 1 {
		t.Fatalf("rate = %+v, want limit 2 remaining 1", resp.Rate)
	}
	if until := time.Until(resp.Rate.Reset.Time); until < 30*time.Second || until > 61*time.Second {
		t.Errorf("reset in %v, want about a minute", until)
	}
	if _, _, err := c.Droplets.Get(ctx(t), d.ID); err != nil {
		t.Fatal(err)
	}
	_, _, err = c.Droplets.Get(ctx(t), d.ID)
	if e := apiError(t, err); e.Response.StatusCode != http.StatusTooManyRequests || e.Message == "" {
		t.Fatalf("over the limit: %d %q", e.Response.StatusCode, e.Message)
	}
	if c.GetRate().Remaining != 0 {
		t.Errorf("client rate after the limit: %+v", c.GetRate())
	}
}

// A fault rule on simcloud's resource type matches the dialect's path for the same resource.
func TestAnErrorFaultOnSimcloudServersHitsDroplets(t *testing.T) {
	d := createDroplet(t, "do-fault")
	sim.AddFault(t, map[string]any{"kind": "error", "status": 503, "code": "service_unavailable", "count": 1, "match": map[string]any{"method": "GET", "resource_type": "server"}})
	_, _, err := client(t).Droplets.Get(ctx(t), d.ID)
	if e := apiError(t, err); e.Response.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("first GET: %d, want 503", e.Response.StatusCode)
	}
	if _, _, err := client(t).Droplets.Get(ctx(t), d.ID); err != nil {
		t.Fatalf("second GET (rule spent): %v", err)
	}
}
