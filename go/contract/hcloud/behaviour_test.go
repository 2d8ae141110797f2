package hcloud

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

func TestErrorsCarryHetznerCodes(t *testing.T) {
	client := NewClient(sim)
	ctx := testContext(t)

	_, _, err := NewClient(sim, hcloud.WithToken("not-a-token")).Server.List(ctx, hcloud.ServerListOpts{})
	if !hcloud.IsError(err, hcloud.ErrorCodeUnauthorized) {
		t.Errorf("an unknown token: %v, want unauthorized", err)
	}

	_, _, err = client.Server.Create(ctx, hcloud.ServerCreateOpts{
		Name: "-bad-", ServerType: &hcloud.ServerType{Name: "sc-small"}, Image: &hcloud.Image{Name: "debian-13"},
	})
	var apiErr hcloud.Error
	if !errors.As(err, &apiErr) || apiErr.Code != hcloud.ErrorCodeInvalidInput {
		t.Fatalf("an invalid name: %v, want invalid_input", err)
	}
	details, isInput := apiErr.Details.(hcloud.ErrorDetailsInvalidInput)
	if !isInput || len(details.Fields) == 0 || details.Fields[0].Name != "name" {
		t.Errorf("invalid_input details = %+v, want the field name", apiErr.Details)
	}

	_, _, err = client.Server.Create(ctx, hcloud.ServerCreateOpts{
		Name: unique("srv"), ServerType: &hcloud.ServerType{Name: "no-such-type"}, Image: &hcloud.Image{Name: "debian-13"},
	})
	if !hcloud.IsError(err, hcloud.ErrorCodeInvalidInput) || !strings.Contains(err.Error(), "no-such-type") {
		t.Errorf("an unknown server type: %v, want invalid_input naming it", err)
	}

	server := newServer(t, client, nil)
	_, _, err = client.Server.Create(ctx, hcloud.ServerCreateOpts{
		Name: server.Name, ServerType: &hcloud.ServerType{Name: "sc-small"}, Image: &hcloud.Image{Name: "debian-13"},
	})
	if !hcloud.IsError(err, hcloud.ErrorCodeUniquenessError) {
		t.Errorf("a duplicate name: %v, want uniqueness_error", err)
	}

	action := ok(client.Server.Poweroff(ctx, server)).Get(t)
	_, _, err = client.Server.Poweron(ctx, server)
	if !hcloud.IsError(err, hcloud.ErrorCodeLocked) {
		t.Errorf("a power action while another runs: %v, want locked", err)
	}
	wait(t, client, action)

	_, _, err = client.Server.Poweron(ctx, &hcloud.Server{ID: 987654321})
	if !hcloud.IsError(err, hcloud.ErrorCodeNotFound) {
		t.Errorf("an unknown server: %v, want not_found", err)
	}
}

func TestListsPageThroughAllWithOpts(t *testing.T) {
	client := NewClient(sim)
	ctx := testContext(t)
	tag := unique("page")
	want := map[int64]bool{}
	for range 5 {
		want[newServer(t, client, map[string]string{"page": tag}).ID] = true
	}
	page1, resp, err := client.Server.List(ctx, hcloud.ServerListOpts{ListOpts: hcloud.ListOpts{LabelSelector: "page=" + tag, PerPage: 2}})
	if err != nil {
		t.Fatal(err)
	}
	p := resp.Meta.Pagination
	if len(page1) != 2 || p == nil || p.Page != 1 || p.PerPage != 2 || p.NextPage != 2 || p.LastPage != 3 || p.TotalEntries != 5 {
		t.Errorf("first page: %d servers, pagination %+v", len(page1), p)
	}
	every := all(client.Server.AllWithOpts(ctx, hcloud.ServerListOpts{ListOpts: hcloud.ListOpts{LabelSelector: "page=" + tag, PerPage: 2}})).Get(t)
	if len(every) != 5 {
		t.Fatalf("AllWithOpts across pages: %d servers, want 5", len(every))
	}
	for _, s := range every {
		if !want[s.ID] {
			t.Errorf("unexpected server %d", s.ID)
		}
	}
}

func TestActionsArePolledAndListed(t *testing.T) {
	client := NewClient(sim)
	ctx := testContext(t)
	server := newServer(t, client, nil)
	first := ok(client.Server.Poweroff(ctx, server)).Get(t)
	if first.Status != hcloud.ActionStatusRunning || first.Command != "stop_server" {
		t.Errorf("new action = %s %s, want running stop_server", first.Status, first.Command)
	}
	var progress []int
	err := client.Action.WaitForFunc(ctx, func(update *hcloud.Action) error {
		progress = append(progress, update.Progress)
		return nil
	}, first)
	if err != nil || len(progress) == 0 || progress[len(progress)-1] != 100 {
		t.Errorf("WaitForFunc: %v, progress %v (want it to end at 100)", err, progress)
	}
	got := ok(client.Action.GetByID(ctx, first.ID)).Get(t)
	if got == nil || got.Status != hcloud.ActionStatusSuccess || got.Finished.IsZero() || len(got.Resources) != 1 || got.Resources[0].ID != server.ID {
		t.Errorf("finished action = %+v", got)
	}
	listed := all(client.Action.AllWithOpts(ctx, hcloud.ActionListOpts{ID: []int64{first.ID}, Status: []hcloud.ActionStatus{hcloud.ActionStatusSuccess}})).Get(t)
	if len(listed) != 1 || listed[0].ID != first.ID {
		t.Errorf("actions by id and status = %+v", listed)
	}
	ofServer := all(client.Server.Action.AllFor(ctx, server, hcloud.ActionListOpts{})).Get(t)
	if len(ofServer) < 2 {
		t.Errorf("the server's actions = %d, want its create and stop actions", len(ofServer))
	}
	byType := ok(client.Server.Action.GetByID(ctx, first.ID)).Get(t)
	if byType == nil || byType.ID != first.ID {
		t.Errorf("GET /servers/actions/%d = %+v", first.ID, byType)
	}
	typeList := all(client.Server.Action.All(ctx, hcloud.ActionListOpts{ID: []int64{first.ID}})).Get(t)
	if len(typeList) != 1 {
		t.Errorf("GET /servers/actions?id=%d = %+v", first.ID, typeList)
	}
	watchCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	second := ok(client.Server.Poweron(ctx, server)).Get(t)
	progressCh, errCh := client.Action.WatchProgress(watchCtx, second)
	for range progressCh {
	}
	if err := <-errCh; err != nil {
		t.Errorf("WatchProgress: %v", err)
	}
}

func TestRateLimitHeadersAndRetry(t *testing.T) {
	client := NewClient(sim, hcloud.WithRetryOpts(hcloud.RetryOpts{BackoffFunc: hcloud.ConstantBackoff(1100 * time.Millisecond), MaxRetries: 3}))
	ctx := testContext(t)
	sim.AddFault(t, map[string]any{"kind": "rate_limit", "limit": 2, "window_seconds": 1, "match": map[string]any{"path": "/hcloud/v1/locations"}})

	_, resp, err := client.Location.List(ctx, hcloud.LocationListOpts{})
	if err != nil {
		t.Fatal(err)
	}
	rl := resp.Meta.Ratelimit
	if rl.Limit != 2 || rl.Remaining != 1 || rl.Reset.Before(time.Now().Add(-time.Minute)) {
		t.Errorf("rate limit meta = %+v, want limit 2, remaining 1 and a reset time (Unix seconds)", rl)
	}
	noRetry := NewClient(sim, hcloud.WithRetryOpts(hcloud.RetryOpts{MaxRetries: 0}))
	_, _, _ = noRetry.Location.List(ctx, hcloud.LocationListOpts{})
	_, resp, err = noRetry.Location.List(ctx, hcloud.LocationListOpts{})
	if !hcloud.IsError(err, hcloud.ErrorCodeRateLimitExceeded) || resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("over the budget: %v, want rate_limit_exceeded (429)", err)
	}
	// hcloud-go retries rate_limit_exceeded itself; after the window the call succeeds.
	if _, _, err := client.Location.List(ctx, hcloud.LocationListOpts{}); err != nil {
		t.Errorf("with retries: %v", err)
	}
}

func TestInjectedFaultsReachTheDialect(t *testing.T) {
	client := NewClient(sim)
	ctx := testContext(t)
	server := newServer(t, client, nil)
	sim.AddFault(t, map[string]any{"kind": "error", "status": 503, "code": "service_unavailable", "count": 1, "match": map[string]any{"resource_type": "server", "method": "GET"}})
	_, _, err := client.Server.GetByID(ctx, server.ID)
	if !hcloud.IsError(err, "unavailable") {
		t.Errorf("an injected 503: %v, want unavailable", err)
	}
	if got := ok(client.Server.GetByID(ctx, server.ID)).Get(t); got == nil {
		t.Error("the server is gone after the one-shot fault")
	}
}

func TestActionsFollowSimulatedTime(t *testing.T) {
	client := NewClient(sim)
	ctx := testContext(t)
	server := newServer(t, client, nil)
	var before struct {
		Delays map[string]any `json:"delays"`
	}
	sim.Do(t, "GET", "/_sim/time", nil, &before)
	t.Cleanup(func() {
		sim.Do(t, "PUT", "/_sim/time", map[string]any{"delays": map[string]any{"server": before.Delays["server"]}}, nil)
	})
	sim.Do(t, "PUT", "/_sim/time", map[string]any{"delays": map[string]any{"server": map[string]any{"delay_ms": 3_600_000, "jitter_ms": 0}}}, nil)

	action := ok(client.Server.Poweroff(ctx, server)).Get(t)
	if got := ok(client.Server.GetByID(ctx, server.ID)).Get(t); got.Status != hcloud.ServerStatusStopping || !got.Locked {
		t.Fatalf("during an hour-long stop: status %s, locked %v; want stopping and locked", got.Status, got.Locked)
	}
	sim.Do(t, "POST", "/_sim/time/fast_forward", map[string]any{"ms": 3_600_000}, nil)
	wait(t, client, action)
	if got := ok(client.Server.GetByID(ctx, server.ID)).Get(t); got.Status != hcloud.ServerStatusOff {
		t.Errorf("after an hour of simulated time: status %s, want off", got.Status)
	}
}
