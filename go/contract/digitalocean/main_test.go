package digitalocean

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/digitalocean/godo"

	"ccm-sandbox/go/internal/simcloudtest"
)

var sim *simcloudtest.Server

func TestMain(m *testing.M) { os.Exit(simcloudtest.Run(m, &sim)) }

// client is a godo client with the project token.
func client(t *testing.T) *godo.Client {
	t.Helper()
	c, err := NewClient(sim, sim.Token)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// apiError is err as godo's *ErrorResponse, failing the test when it is something else.
func apiError(t *testing.T, err error) *godo.ErrorResponse {
	t.Helper()
	var e *godo.ErrorResponse
	if !errors.As(err, &e) {
		t.Fatalf("want a *godo.ErrorResponse, got %T %v", err, err)
	}
	return e
}

// eventually polls check every 50ms until it returns nil or the test's 30s pass.
func eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
