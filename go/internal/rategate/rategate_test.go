package rategate

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

func TestAnnouncedReadsRetryAfterThenRateLimitReset(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	cases := []struct {
		name    string
		headers map[string]string
		want    time.Time
	}{
		{"retry-after seconds", map[string]string{"Retry-After": "7", "RateLimit-Reset": "1800000100"}, now.Add(7 * time.Second)},
		{"retry-after date", map[string]string{"Retry-After": now.Add(time.Minute).UTC().Format(http.TimeFormat)}, now.Add(time.Minute)},
		{"reset as a Unix time", map[string]string{"RateLimit-Reset": "1800000030"}, now.Add(30 * time.Second)},
		{"reset in seconds", map[string]string{"RateLimit-Reset": "4"}, now.Add(4 * time.Second)},
		{"linode's reset", map[string]string{"X-RateLimit-Reset": "1800000005"}, now.Add(5 * time.Second)},
		{"nothing said", map[string]string{}, now.Add(time.Second)},
	}
	for _, c := range cases {
		h := http.Header{}
		for k, v := range c.headers {
			h.Set(k, v)
		}
		if got := Announced(h, now); !got.Equal(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestA429HoldsEveryLaterRequestUntilTheAnnouncedTime(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(http.StatusTooManyRequests)
		}
	}))
	defer srv.Close()
	client := &http.Client{Transport: New(nil)}
	res, err := client.Get(srv.URL)
	if err != nil || res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("first answer %v, %v; want the 429", res, err)
	}
	_ = res.Body.Close()
	// Another caller's request waits for the gate: its context ends first, and nothing is sent.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	if _, err := client.Do(req); err == nil {
		t.Fatal("a request went out before the announced time")
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the server saw %d requests, want 1", n)
	}
}
