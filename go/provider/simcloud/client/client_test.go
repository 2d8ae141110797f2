package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// recorder is an httptest handler answering from a script and recording what it received.
type recorder struct {
	mu       sync.Mutex
	requests []*http.Request
	answers  []func(http.ResponseWriter)
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	n := len(r.requests)
	r.requests = append(r.requests, req.Clone(context.Background()))
	answer := r.answers[min(n, len(r.answers)-1)]
	r.mu.Unlock()
	answer(w)
}

func status(code int, headers map[string]string, body string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for k, v := range headers {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = w.Write([]byte(body))
	}
}

const serversPage = `{"servers":[],"meta":{"pagination":{"page":1,"per_page":1,"next_page":null,"last_page":1,"total_entries":0}}}`

type sleeps struct {
	mu  sync.Mutex
	got []time.Duration
}

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, d)
	return nil
}

func newTestClient(t *testing.T, rec *recorder) (*Client, *sleeps) {
	t.Helper()
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	s := &sleeps{}
	c, err := New(srv.URL, "test-token", WithSleep(s.sleep))
	if err != nil {
		t.Fatal(err)
	}
	return c, s
}

func TestEveryRequestCarriesTokenCallerMethodAndRequestID(t *testing.T) {
	rec := &recorder{answers: []func(http.ResponseWriter){status(200, nil, serversPage)}}
	c, _ := newTestClient(t, rec)
	ctx := WithCaller(context.Background(), Caller{Controller: "cloud-node-controller", Key: "node-1", Method: "InstanceMetadata"})
	if _, _, err := c.ListServers(ctx, ListOpts{Name: "node-1", PerPage: 2}); err != nil {
		t.Fatal(err)
	}
	got := rec.requests[0]
	want := map[string]string{
		"Authorization": "Bearer test-token",
		HeaderCaller:    "cloud-node-controller node-1",
		HeaderMethod:    "InstanceMetadata",
		"Accept":        "application/json",
	}
	for k, v := range want {
		if got.Header.Get(k) != v {
			t.Errorf("header %s = %q, want %q", k, got.Header.Get(k), v)
		}
	}
	if got.Header.Get(HeaderRequestID) == "" {
		t.Error("no request id")
	}
	if got.URL.Path != "/v1/servers" || got.URL.Query().Get("name") != "node-1" || got.URL.Query().Get("per_page") != "2" {
		t.Errorf("request %s", got.URL)
	}
}

func TestRetries(t *testing.T) {
	rateLimited := status(429, map[string]string{"Retry-After": "2"}, `{"error":{"code":"rate_limit_exceeded","message":"slow down"}}`)
	unavailable := status(503, nil, `{"error":{"code":"service_unavailable","message":"try later"}}`)
	internal := status(500, nil, `{"error":{"code":"server_error","message":"boom"}}`)
	ok := status(200, nil, `{"server_group":{"id":"sg-1","name":"g","description":"","labels":{},"servers":[],"firewall_policy_id":null}}`)
	cases := []struct {
		name     string
		answers  []func(http.ResponseWriter)
		call     func(*Client) error
		attempts int
		waits    []time.Duration
		wantErr  string
	}{
		{
			name: "a 429 is retried after Retry-After, even for a POST", answers: []func(http.ResponseWriter){rateLimited, ok},
			call: func(c *Client) error {
				_, err := c.AddServers(context.Background(), "sg-1", []string{"srv-1"})
				return err
			},
			attempts: 2, waits: []time.Duration{2 * time.Second},
		},
		{
			name: "a 5xx is retried with backoff for a GET", answers: []func(http.ResponseWriter){unavailable, internal, status(200, nil, serversPage)},
			call:     func(c *Client) error { _, _, err := c.ListServers(context.Background(), ListOpts{}); return err },
			attempts: 3, waits: []time.Duration{200 * time.Millisecond, 400 * time.Millisecond},
		},
		{
			name: "a 5xx is retried for a DELETE", answers: []func(http.ResponseWriter){internal, status(204, nil, "")},
			call:     func(c *Client) error { return c.DeleteServerGroup(context.Background(), "sg-1") },
			attempts: 2, waits: []time.Duration{200 * time.Millisecond},
		},
		{
			name: "a 5xx is never retried for a POST", answers: []func(http.ResponseWriter){internal, ok},
			call: func(c *Client) error {
				_, err := c.AddServers(context.Background(), "sg-1", []string{"srv-1"})
				return err
			},
			attempts: 1, wantErr: "serverGroups.addServers: server_error (HTTP 500): boom",
		},
		{
			name: "a 4xx is not retried", answers: []func(http.ResponseWriter){status(404, nil, `{"error":{"code":"not_found","message":"no such server"}}`)},
			call:     func(c *Client) error { _, err := c.GetServer(context.Background(), "srv-9"); return err },
			attempts: 1, wantErr: "servers.get: not_found (HTTP 404): no such server",
		},
		{
			name: "retries stop after MaxRetries", answers: []func(http.ResponseWriter){unavailable},
			call:     func(c *Client) error { _, err := c.GetServer(context.Background(), "srv-1"); return err },
			attempts: 5, wantErr: "servers.get: service_unavailable (HTTP 503): try later",
			waits: []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, 1600 * time.Millisecond},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{answers: tc.answers}
			c, s := newTestClient(t, rec)
			err := tc.call(c)
			if tc.wantErr == "" && err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
			if len(rec.requests) != tc.attempts {
				t.Errorf("%d attempts, want %d", len(rec.requests), tc.attempts)
			}
			ids := map[string]bool{}
			for _, r := range rec.requests {
				ids[r.Header.Get(HeaderRequestID)] = true
			}
			if len(ids) != 1 {
				t.Errorf("retries of one call used %d request ids, want 1", len(ids))
			}
			if len(s.got) != len(tc.waits) {
				t.Fatalf("waits %v, want %v", s.got, tc.waits)
			}
			for i := range tc.waits {
				if s.got[i] != tc.waits[i] {
					t.Errorf("wait %d = %v, want %v", i, s.got[i], tc.waits[i])
				}
			}
		})
	}
}

func TestNewRefusesBadEndpointAndToken(t *testing.T) {
	cases := []struct{ endpoint, token, want string }{
		{"127.0.0.1:4600", "t", `endpoint "127.0.0.1:4600" must be an http or https URL like http://127.0.0.1:4600`},
		{"ftp://x", "t", `endpoint "ftp://x" must be an http or https URL like http://127.0.0.1:4600`},
		{"http://127.0.0.1:4600", "", "token must be non-empty and contain no spaces or line breaks"},
		{"http://127.0.0.1:4600", "a\nb", "token must be non-empty and contain no spaces or line breaks"},
	}
	for _, tc := range cases {
		if _, err := New(tc.endpoint, tc.token); err == nil || err.Error() != tc.want {
			t.Errorf("New(%q, %q) error %v, want %q", tc.endpoint, tc.token, err, tc.want)
		}
	}
}

func TestWaitForActionPollsUntilTheActionEnds(t *testing.T) {
	running := status(200, nil, `{"action":{"id":"act-1","command":"create_load_balancer","status":"running","progress":50,"error":null}}`)
	failed := status(200, nil, `{"action":{"id":"act-1","command":"create_load_balancer","status":"error","progress":100,"error":{"code":"conflict","message":"no VIP left"}}}`)
	rec := &recorder{answers: []func(http.ResponseWriter){running, failed}}
	c, s := newTestClient(t, rec)
	err := c.WaitForAction(context.Background(), &Action{ID: "act-1", Command: "create_load_balancer", Status: ActionRunning})
	if err == nil || err.Error() != "actions.create_load_balancer: conflict: no VIP left" {
		t.Fatalf("error %v", err)
	}
	if len(rec.requests) != 2 || rec.requests[0].URL.Path != "/v1/actions/act-1" {
		t.Errorf("%d polls", len(rec.requests))
	}
	if len(s.got) != 2 || s.got[0] != 100*time.Millisecond || s.got[1] != 200*time.Millisecond {
		t.Errorf("poll intervals %v, want 100ms then 200ms", s.got)
	}
}

func TestTheObserverSeesEveryAttempt(t *testing.T) {
	rec := &recorder{answers: []func(http.ResponseWriter){status(503, nil, `{"error":{"code":"service_unavailable","message":"x"}}`), status(200, nil, serversPage)}}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	var seen []string
	c, err := New(srv.URL, "t", WithSleep((&sleeps{}).sleep), WithObserver(func(op string, status int, _ time.Duration) {
		seen = append(seen, op+" "+http.StatusText(status))
	}))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.ListServers(context.Background(), ListOpts{}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[0] != "servers.list Service Unavailable" || seen[1] != "servers.list OK" {
		t.Errorf("observed %v", seen)
	}
}
