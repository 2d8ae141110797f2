// Package poll is the one way this module waits for something to happen: an action to finish, a status to
// be reached. Until serves the providers, Eventually their tests and the SDK contract tests. It imports
// only the standard library, so the contract-test modules can use it without compiling Kubernetes.
package poll

import (
	"context"
	"fmt"
	"time"
)

// Backoff is how long Until waits between two checks: First, doubled after each wait up to Max (a Max
// below First keeps First).
type Backoff struct {
	First time.Duration
	Max   time.Duration
	// Sleep waits d or until ctx ends; nil is a timer. Tests of a caller pass one that returns at once.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Until calls check at once and after each wait until it reports done or returns an error (returned as
// it is), or ctx ends (ctx's error).
func Until(ctx context.Context, b Backoff, check func(context.Context) (done bool, err error)) error {
	sleep := b.Sleep
	if sleep == nil {
		sleep = Sleep
	}
	for wait := b.First; ; wait = min(2*wait, max(b.Max, b.First)) {
		if done, err := check(ctx); done || err != nil {
			return err
		}
		if err := sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// Sleep waits d, or until ctx ends with ctx's error.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// TB is the part of testing.TB that Eventually uses; this package is linked into the CCM, which should not
// link package testing.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Timeout and Interval bound Eventually: simcloud's transitions take tens of milliseconds, and a slow,
// shared machine can take seconds.
const (
	Timeout  = 30 * time.Second
	Interval = 25 * time.Millisecond
)

// Eventually calls check every Interval until it returns nil; after Timeout it fails t with what and
// check's last error.
func Eventually(t TB, what string, check func() error) {
	t.Helper()
	eventually(t, Timeout, what, check)
}

func eventually(t TB, timeout time.Duration, what string, check func() error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var last error
	err := Until(ctx, Backoff{First: Interval}, func(context.Context) (bool, error) {
		last = check()
		return last == nil, nil
	})
	if err != nil {
		t.Fatalf("%s: not within %s: %v", what, timeout, last)
	}
}

// Returns is a check for Eventually on a call that answers a value: nil once the call returned want
// without an error, e.g. Returns(true)(instances.InstanceShutdown(ctx, node)).
func Returns[T comparable](want T) func(got T, err error) error {
	return func(got T, err error) error {
		if err == nil && got != want {
			return fmt.Errorf("got %v, want %v", got, want)
		}
		return err
	}
}
