package poll

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

func TestUntil(t *testing.T) {
	boom := errors.New("boom")
	ms := time.Millisecond
	cases := []struct {
		name       string
		backoff    Backoff
		doneAt     int // the check that reports done (1 = the first)
		failAt     int // the check that returns boom
		sleepErrAt int // the wait that is cut short
		wantWaits  []time.Duration
		wantErr    error
	}{
		{name: "done at once, no wait", backoff: Backoff{First: 100 * ms, Max: time.Second}, doneAt: 1},
		{name: "doubling", backoff: Backoff{First: 100 * ms, Max: time.Second}, doneAt: 4, wantWaits: []time.Duration{100 * ms, 200 * ms, 400 * ms}},
		{name: "capped at Max", backoff: Backoff{First: 100 * ms, Max: 250 * ms}, doneAt: 5, wantWaits: []time.Duration{100 * ms, 200 * ms, 250 * ms, 250 * ms}},
		{name: "no Max: constant", backoff: Backoff{First: 25 * ms}, doneAt: 3, wantWaits: []time.Duration{25 * ms, 25 * ms}},
		{name: "a check's error ends it as it is", backoff: Backoff{First: ms}, failAt: 2, wantWaits: []time.Duration{ms}, wantErr: boom},
		{name: "an ended wait ends it with its error", backoff: Backoff{First: ms}, sleepErrAt: 2, wantWaits: []time.Duration{ms, ms}, wantErr: context.DeadlineExceeded},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var waits []time.Duration
			tc.backoff.Sleep = func(_ context.Context, d time.Duration) error {
				waits = append(waits, d)
				if len(waits) == tc.sleepErrAt {
					return context.DeadlineExceeded
				}
				return nil
			}
			checks := 0
			err := Until(context.Background(), tc.backoff, func(context.Context) (bool, error) {
				checks++
				if checks == tc.failAt {
					return false, boom
				}
				return checks == tc.doneAt, nil
			})
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Errorf("err = %v, want %v", err, tc.wantErr)
			}
			if !slices.Equal(waits, tc.wantWaits) {
				t.Errorf("waits = %v, want %v", waits, tc.wantWaits)
			}
		})
	}
}

func TestUntilWaitsForReal(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	err := Until(ctx, Backoff{First: 5 * time.Millisecond}, func(context.Context) (bool, error) { return false, nil })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the context's deadline", err)
	}
}

// fakeT records what Eventually reports instead of ending the test.
type fakeT struct{ failed string }

func (f *fakeT) Helper()                           {}
func (f *fakeT) Fatalf(format string, args ...any) { f.failed = fmt.Sprintf(format, args...) }

func TestEventually(t *testing.T) {
	cases := []struct {
		name       string
		passAfter  int // checks that fail before one passes; -1: never
		wantFailed string
	}{
		{name: "passes at once", passAfter: 0},
		{name: "passes after a few checks", passAfter: 3},
		{name: "fails with what and the last error", passAfter: -1, wantFailed: "droplet 7 active: not within 200ms: status new"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeT{}
			checks := 0
			eventually(f, 200*time.Millisecond, "droplet 7 active", func() error {
				checks++
				if tc.passAfter >= 0 && checks > tc.passAfter {
					return nil
				}
				return errors.New("status new")
			})
			if f.failed != tc.wantFailed {
				t.Errorf("failed with %q, want %q", f.failed, tc.wantFailed)
			}
		})
	}
}

func TestReturns(t *testing.T) {
	boom := errors.New("boom")
	cases := []struct {
		name string
		got  bool
		err  error
		want string // "" for nil
	}{
		{"the wanted value", true, nil, ""},
		{"another value", false, nil, "got false, want true"},
		{"the call's error", true, boom, "boom"},
	}
	for _, tc := range cases {
		if err := Returns(true)(tc.got, tc.err); fmt.Sprint(err) != tc.want && !(tc.want == "" && err == nil) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
