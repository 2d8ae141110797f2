package simcloud

import (
	"context"
	"fmt"

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
	c, err := client.New(cfg.Endpoint, cfg.Token, client.WithTimeout(cfg.RequestTimeout), client.WithUserAgent("ccm-sandbox-upstream-ccm"), client.WithObserver(observeCall))
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
	if cfg.LoadBalancersEnabled {
		caps.LoadBalancer = newLoadBalancers(c, cfg.LoadBalancerStrategy)
	}
	if cfg.RoutesEnabled && cfg.Network != "" {
		caps.Routes = &routes{client: c, network: cfg.Network}
	}
	return providerkit.NewCloud(ProviderName, caps), nil
}
