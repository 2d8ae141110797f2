package simcloud

import (
	"context"
	"fmt"
	"net/http"
	"time"

	cloudprovider "k8s.io/cloud-provider"

	"ccm-sandbox/go/internal/providerkit"
	"ccm-sandbox/go/provider/simcloud/client"
)

// ProviderName is the name passed to --cloud-provider and the scheme of every providerID.
const ProviderName = "simcloud"

func init() { providerkit.Register(ProviderName, LoadConfig, NewCloud) }

// NewCloud builds the provider and makes one cheap authenticated call, so a wrong endpoint or token fails
// at start with one line naming the endpoint. Its errors carry no "simcloud: NewCloud:" prefix: upstream
// already names the provider in front of them, and test/integration/upstream-ccm.test.ts pins that line
// as our TypeScript CCM prints it. Load balancers and routes can be switched off (routes need a network);
// every resource carries the --cluster-name it was created for.
func NewCloud(ctx context.Context, cfg Config) (*providerkit.Cloud, error) {
	opts := []client.Option{client.WithTimeout(cfg.RequestTimeout), client.WithUserAgent("ccm-sandbox-upstream-ccm"), client.WithObserver(observeCall)}
	if faultyVariant(VariantIgnore429) {
		opts = append(opts, client.WithHTTPClient(&http.Client{Timeout: cfg.RequestTimeout}), client.WithRetryPolicy(ignore429Policy))
	}
	c, err := client.New(cfg.Endpoint, cfg.Token, opts...)
	if err != nil {
		return nil, fmt.Errorf("%s/%s: %w", EnvEndpoint, EnvToken, err)
	}
	probe := client.WithCaller(ctx, client.Caller{Controller: "upstream-ccm", Key: "startup-probe", Method: "Initialize"})
	err = providerkit.Probe(probe, cfg.RequestTimeout, "simcloud", cfg.Endpoint, func(ctx context.Context) error {
		_, _, err := c.ListServers(ctx, client.ListOpts{PerPage: 1})
		return err
	})
	if err != nil {
		return nil, err
	}
	caps := providerkit.Capabilities{InstancesV2: newInstances(c), ClusterID: true}
	if faultyVariant(VariantPoll100ms) {
		caps.Initialize = func(_ cloudprovider.ControllerClientBuilder, stop <-chan struct{}) {
			go pollServers(c, pollInterval100ms, stop)
		}
	}
	if cfg.LoadBalancersEnabled {
		caps.LoadBalancer = newLoadBalancers(c, cfg.LoadBalancerStrategy)
	}
	if cfg.RoutesEnabled && cfg.Network != "" {
		caps.Routes = &routes{client: c, network: cfg.Network}
	}
	return providerkit.NewCloud(ProviderName, caps), nil
}

// VariantPoll100ms lists every server ten times a second for as long as the CCM runs, as a CCM polling one
// endpoint far above any budget does (hcloud-cloud-controller-manager #661).
const VariantPoll100ms = "poll-100ms"

const pollInterval100ms = 100 * time.Millisecond

// pollServers lists the servers every interval until stop closes; answers and errors are dropped.
func pollServers(c *client.Client, interval time.Duration, stop <-chan struct{}) {
	ctx := client.WithCaller(context.Background(), client.Caller{Controller: "faulty-poller", Key: VariantPoll100ms, Method: "ListServers"})
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			_, _, _ = c.ListServers(ctx, client.ListOpts{PerPage: 50})
		}
	}
}

// VariantIgnore429 has no rate gate (go/internal/rategate) and retries a rate-limited call at once, whatever
// Retry-After says: its calls come before the announced time, as a client that reads 429 as any other error.
const VariantIgnore429 = "ignore-429"

// ignore429Policy caps Retry-After at nothing and retries without a pause.
var ignore429Policy = client.RetryPolicy{
	MaxRetries: client.DefaultRetryPolicy.MaxRetries, BaseDelay: client.DefaultRetryPolicy.BaseDelay, MaxDelay: client.DefaultRetryPolicy.MaxDelay, MaxRetryAfter: 0,
}
