package hcloud

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"ccm-sandbox/go/internal/providerkit"
	"ccm-sandbox/go/internal/rategate"
)

// ProviderName is the name passed to --cloud-provider and the scheme of every providerID.
const ProviderName = "hcloud"

func init() {
	// Hetzner's CCM reads only its environment; so does this one.
	providerkit.Register(ProviderName, providerkit.EnvOnly("HCLOUD_* environment variables", LoadConfig), NewCloud)
}

// NewCloud builds the provider. It reads the configured network (it must exist) and otherwise makes one
// cheap authenticated call, so a wrong endpoint, token or network fails at start with one line. Load
// balancers can be switched off, and routes need a network; Hetzner resources carry no cluster id: a load
// balancer belongs to its Service by the service-uid label.
func NewCloud(ctx context.Context, cfg Config) (_ *providerkit.Cloud, err error) {
	defer providerkit.Wrap(&err, ProviderName, "NewCloud")
	client := hcloud.NewClient(
		hcloud.WithEndpoint(cfg.Endpoint),
		hcloud.WithToken(cfg.Token),
		hcloud.WithApplication("ccm-sandbox-upstream-ccm", ""),
		hcloud.WithHTTPClient(&http.Client{Timeout: providerkit.RequestTimeout, Transport: callerTransport{next: rategate.New(nil)}}),
		// Actions in a sandbox take milliseconds: poll often at first, back off to Hetzner's usual pace.
		hcloud.WithPollOpts(hcloud.PollOpts{BackoffFunc: hcloud.ExponentialBackoffWithOpts(hcloud.ExponentialBackoffOpts{
			Base: 50 * time.Millisecond, Multiplier: 2, Cap: 2 * time.Second,
		})}),
	)
	var network *hcloud.Network
	probe := withCaller(ctx, "upstream-ccm", "startup-probe", "Initialize")
	err = providerkit.Probe(probe, providerkit.RequestTimeout, "the Hetzner API", cfg.Endpoint, func(ctx context.Context) (err error) {
		network, err = resolveNetwork(ctx, client, cfg.Network)
		return err
	})
	if err != nil {
		return nil, err
	}
	var networkID int64
	if network != nil {
		networkID = network.ID
	}
	caps := providerkit.Capabilities{
		InstancesV2: newInstances(&instances{client: client, networkID: networkID, family: cfg.AddressFamily, zoneLabel: cfg.ZoneLabelEnabled}),
	}
	if cfg.LoadBalancer.Enabled {
		caps.LoadBalancer = &loadBalancers{client: client, defaults: cfg.LoadBalancer, network: network}
	}
	if cfg.RoutesEnabled && network != nil {
		caps.Routes = &routes{client: client, networkID: networkID}
	}
	return providerkit.NewCloud(ProviderName, caps), nil
}

// resolveNetwork reads the network by id or name; none configured, it lists one location instead, to
// check the endpoint and token.
func resolveNetwork(ctx context.Context, client *hcloud.Client, idOrName string) (*hcloud.Network, error) {
	if idOrName == "" {
		_, _, err := client.Location.List(ctx, hcloud.LocationListOpts{ListOpts: hcloud.ListOpts{PerPage: 1}})
		return nil, err
	}
	network, _, err := client.Network.Get(ctx, idOrName)
	if err != nil {
		return nil, err
	}
	if network == nil {
		return nil, fmt.Errorf("%s=%s: no such network", EnvNetwork, idOrName)
	}
	return network, nil
}
