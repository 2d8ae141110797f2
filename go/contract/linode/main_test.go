package linode

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/linode/linodego/v2"

	"ccm-sandbox/go/internal/simcloudtest"
)

var sim *simcloudtest.Server

func TestMain(m *testing.M) { os.Exit(simcloudtest.Run(m, &sim)) }

// client is a linodego client with the project token.
func client(t *testing.T) *linodego.Client {
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

// apiError is err as linodego's *Error, failing the test when it is something else.
func apiError(t *testing.T, err error) *linodego.Error {
	t.Helper()
	var e *linodego.Error
	if !errors.As(err, &e) {
		t.Fatalf("want a *linodego.Error, got %T %v", err, err)
	}
	return e
}
