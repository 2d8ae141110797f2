// Package rategate holds back every request of one client after a 429 until the time the answer announced.
// A cloud's rate limit is per token, so one answer speaks for all of the client's callers: retrying only
// the call that met the 429 (what an SDK's retry does) lets every other controller's next call arrive before
// the announced time and meet another 429. The gate is an http.RoundTripper, so any SDK that takes an
// *http.Client gets it: the simcloud client and hcloud-go both do.
package rategate

import (
	"net/http"
	"strconv"
	"sync"
	"time"
)

// epochThreshold tells a RateLimit-Reset given as a Unix time (Hetzner's, DigitalOcean's) from seconds to wait.
const epochThreshold = 1_000_000_000

// Transport is the gate. Its zero value is not usable: build it with New.
type Transport struct {
	next  http.RoundTripper
	now   func() time.Time
	mu    sync.Mutex
	until time.Time
}

// New gates next (http.DefaultTransport when nil) on the wall clock.
func New(next http.RoundTripper) *Transport {
	if next == nil {
		next = http.DefaultTransport
	}
	return &Transport{next: next, now: time.Now}
}

// RoundTrip waits for the gate (or the request's context), sends, and closes the gate on a 429.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if wait := t.wait(); wait > 0 {
		timer := time.NewTimer(wait)
		select {
		case <-req.Context().Done():
			timer.Stop()
			return nil, req.Context().Err()
		case <-timer.C:
		}
	}
	res, err := t.next.RoundTrip(req)
	if err == nil && res.StatusCode == http.StatusTooManyRequests {
		t.hold(Announced(res.Header, t.now()))
	}
	return res, err
}

func (t *Transport) wait() time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.until.Sub(t.now())
}

func (t *Transport) hold(until time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if until.After(t.until) {
		t.until = until
	}
}

// Announced is when a 429 answer says to come back: Retry-After (seconds or an HTTP date), else RateLimit-Reset
// or X-RateLimit-Reset (a Unix time or seconds), else one second from now.
func Announced(h http.Header, now time.Time) time.Time {
	if v := h.Get("Retry-After"); v != "" {
		if s, err := strconv.Atoi(v); err == nil && s >= 0 {
			return now.Add(time.Duration(s) * time.Second)
		}
		if d, err := http.ParseTime(v); err == nil {
			return d
		}
	}
	for _, name := range []string{"RateLimit-Reset", "X-RateLimit-Reset"} {
		if s, err := strconv.ParseInt(h.Get(name), 10, 64); err == nil && s >= 0 {
			if s >= epochThreshold {
				return time.Unix(s, 0)
			}
			return now.Add(time.Duration(s) * time.Second)
		}
	}
	return now.Add(time.Second)
}
