package linode

import (
	"context"
	"os"
	"testing"

	"github.com/linode/linodego/v2"

	"ccm-sandbox/go/internal/simcloudtest"
)

var sim *simcloudtest.Server

func TestMain(m *testing.M) { os.Exit(simcloudtest.Run(m, &sim)) }

// client is a linodego client with the project token.
func client(t *testing.T) *linodego.Client {
	return simcloudtest.Must(NewClient(sim, sim.Token)).Get(t)
}

func ctx(t *testing.T) context.Context { return simcloudtest.Context(t) }

// apiError is err as linodego's *Error, failing the test when it is something else.
func apiError(t *testing.T, err error) *linodego.Error {
	t.Helper()
	return simcloudtest.As[*linodego.Error](t, err)
}
