package digitalocean

import (
	"context"
	"os"
	"testing"

	"github.com/digitalocean/godo"

	"ccm-sandbox/go/internal/simcloudtest"
)

var sim *simcloudtest.Server

func TestMain(m *testing.M) { os.Exit(simcloudtest.Run(m, &sim)) }

// client is a godo client with the project token.
func client(t *testing.T) *godo.Client { return simcloudtest.Must(NewClient(sim, sim.Token)).Get(t) }

func ctx(t *testing.T) context.Context { return simcloudtest.Context(t) }

// apiError is err as godo's *ErrorResponse, failing the test when it is something else.
func apiError(t *testing.T, err error) *godo.ErrorResponse {
	t.Helper()
	return simcloudtest.As[*godo.ErrorResponse](t, err)
}
