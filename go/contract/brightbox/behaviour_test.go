package brightbox

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

// Brightbox's API does not page: a list answers every resource at once, as gobrightbox's collection calls
// expect (they decode one JSON array).
func TestListsAreOneArray(t *testing.T) {
	c := connect(t)
	want := map[string]bool{}
	for range 3 {
		want[createServer(t, c).ID] = true
	}
	list, err := c.Servers(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		delete(want, s.ID)
	}
	if len(want) != 0 {
		t.Fatalf("not listed: %v", want)
	}
}

// A rate limit on the API's servers: RateLimit-* headers (Reset as a Unix time on simcloud's clock), then 429 in Brightbox's body,
// with Retry-After, which gobrightbox's APIError reads.
func TestRateLimitOnServers(t *testing.T) {
	c := connect(t)
	s := createServer(t, c)
	sim.AddFault(t, map[string]any{"kind": "rate_limit", "limit": 2, "window_seconds": 60, "match": map[string]any{"path": APIPath + "/servers/*"}})
	code, _ := send(t, c, "GET", "servers/"+s.ID, nil)
	if code != http.StatusOK {
		t.Fatalf("first: %d", code)
	}
	if _, err := c.Server(ctx(t), s.ID); err != nil {
		t.Fatal(err)
	}
	_, err := c.Server(ctx(t), s.ID)
	e := apiError(t, err, http.StatusTooManyRequests)
	if e.ErrorName != "rate_limited" || len(e.Errors) == 0 {
		t.Fatalf("%+v", e)
	}
	res := head(t, c, "servers/"+s.ID)
	reset, _ := strconv.ParseInt(res.Header.Get("RateLimit-Reset"), 10, 64)
	var clock struct{ Now time.Time }
	sim.Do(t, "GET", "/_sim/time", nil, &clock)
	if left := time.Unix(reset, 0).Sub(clock.Now); res.StatusCode != http.StatusTooManyRequests || left < 0 || left > 61*time.Second || res.Header.Get("Retry-After") == "" {
		t.Fatalf("%d reset in %v, headers %v", res.StatusCode, left, res.Header)
	}
	if _, err := c.Zones(ctx(t)); err != nil {
		t.Fatalf("another path is not limited: %v", err)
	}
}

// A fault rule on simcloud's resource type matches the persona's path for the same resource: a 503 once, in
// Brightbox's body, then the call goes through.
func TestAnErrorFaultOnSimcloudLoadBalancersHitsBrightboxsPath(t *testing.T) {
	c := connect(t)
	fired := sim.AddFault(t, map[string]any{"kind": "error", "status": 503, "code": "service_unavailable", "count": 1, "match": map[string]any{"method": "GET", "resource_type": "load_balancer"}})
	_, err := c.LoadBalancers(ctx(t))
	if e := apiError(t, err, http.StatusServiceUnavailable); e.ErrorName == "" || len(e.Errors) == 0 {
		t.Fatalf("%+v (%s)", e, e.ResponseBody)
	}
	if _, err := c.LoadBalancers(ctx(t)); err != nil {
		t.Fatalf("second call (rule spent): %v", err)
	}
	if n := fired(); n != 1 {
		t.Errorf("fired %d times", n)
	}
}
