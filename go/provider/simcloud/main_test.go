package simcloud

import (
	"context"
	"os"
	"testing"
	"time"

	"ccm-sandbox/go/internal/providerkit"
	"ccm-sandbox/go/internal/simcloudtest"
)

// sim is one real simcloud process shared by this package's tests; each test uses names of its own.
var sim *simcloudtest.Server

func TestMain(m *testing.M) { os.Exit(simcloudtest.Run(m, &sim)) }

// unique returns a name no other test of this run uses.
func unique(prefix string) string { return simcloudtest.UniqueName(prefix) }

// newTestCloud is the provider against the test simcloud, with routes in network (none when empty) and
// load balancer strategy lb unless another is given.
func newTestCloud(t *testing.T, network string, strategy ...string) *providerkit.Cloud {
	t.Helper()
	cfg := Config{
		Endpoint: sim.URL, Token: sim.Token, RequestTimeout: 10 * time.Second, Network: network,
		RoutesEnabled: true, LoadBalancersEnabled: true, LoadBalancerStrategy: strategyLoadBalancer,
	}
	if len(strategy) > 0 {
		cfg.LoadBalancerStrategy = strategy[0]
	}
	return simcloudtest.Must(NewCloud(context.Background(), cfg)).Get(t)
}
