package simcloudtest

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The helpers below are what every provider's and contract module's tests would otherwise copy. Like the
// rest of this package they import only the standard library: the contract modules compile this package,
// and must not compile Kubernetes or another module's SDK for it (imports_test.go checks).

// ContextTimeout bounds one test's calls; a slow, shared machine can take seconds where simcloud takes
// milliseconds.
const ContextTimeout = 60 * time.Second

// Context is a context for t's calls, cancelled when t ends.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), ContextTimeout)
	t.Cleanup(cancel)
	return ctx
}

// Result is what a call returned, for fixtures that need its value or the test fails:
// Must(NewClient(cfg)).Get(t).
type Result[T any] struct {
	Value T
	Err   error
}

// Must holds a call's results until Get.
func Must[T any](v T, err error) Result[T] { return Result[T]{Value: v, Err: err} }

// Get is the value, after failing t when the call returned an error.
func (r Result[T]) Get(t testing.TB) T {
	t.Helper()
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	return r.Value
}

// As is err as E, an SDK's error type, failing t when err is nil or of another type.
func As[E error](t testing.TB, err error) E {
	t.Helper()
	e, ok := errors.AsType[E](err)
	if !ok {
		t.Fatalf("want a %T, got %T %v", e, err, err)
	}
	return e
}
