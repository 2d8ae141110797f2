package hcloud

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2"
)

// ProviderName is the name passed to --cloud-provider and the scheme of every providerID.
const ProviderName = "hcloud"

// requestTimeout bounds one HTTP exchange with the API.
const requestTimeout = 30 * time.Second

var _ cloudprovider.Interface = (*Cloud)(nil)

func init() {
	cloudprovider.RegisterCloudProvider(ProviderName, func(config io.Reader) (cloudprovider.Interface, error) {
		if config != nil {
			// Hetzner's CCM reads only its environment; so does this one.
			if data, _ := io.ReadAll(config); len(data) > 0 {
				klog.Warningf("the hcloud provider ignores --cloud-config; it is configured by HCLOUD_* environment variables")
			}
		}
		cfg, err := LoadConfig(os.LookupEnv)
		if err != nil {
			return nil, err
		}
		return NewCloud(context.Background(), cfg)
	})
}

// Cloud is the hcloud cloudprovider.Interface. Capabilities switched off answer (nil, false), so the
// cloud controller manager does not start their controllers.
type Cloud struct {
	client        *hcloud.Client
	instances     *instances
	loadBalancers *loadBalancers
	routes        *routes
}

// NewCloud builds the provider. It reads the configured network (it must exist) and otherwise makes one
// cheap authenticated call, so a wrong endpoint, token or network fails at start with one line.
func NewCloud(ctx context.Context, cfg Config) (*Cloud, error) {
	client := hcloud.NewClient(
		hcloud.WithEndpoint(cfg.Endpoint),
		hcloud.WithToken(cfg.Token),
		hcloud.WithApplication("ccm-sandbox-upstream-ccm", ""),
		hcloud.WithHTTPClient(&http.Client{Timeout: requestTimeout, Transport: callerTransport{next: http.DefaultTransport}}),
		// Actions in a sandbox take milliseconds: poll often at first, back off to Hetzner's usual pace.
		hcloud.WithPollOpts(hcloud.PollOpts{BackoffFunc: hcloud.ExponentialBackoffWithOpts(hcloud.ExponentialBackoffOpts{
			Base: 50 * time.Millisecond, Multiplier: 2, Cap: 2 * time.Second,
		})}),
	)
	probe, cancel := context.WithTimeout(withCaller(ctx, "upstream-ccm", "startup-probe", "Initialize"), requestTimeout)
	defer cancel()
	network, err := resolveNetwork(probe, client, cfg.Network)
	if err != nil {
		return nil, fmt.Errorf("cannot use the Hetzner API at %s: %w", cfg.Endpoint, err)
	}
	var networkID int64
	if network != nil {
		networkID = network.ID
	}
	cloud := &Cloud{
		client:    client,
		instances: &instances{client: client, networkID: networkID, family: cfg.AddressFamily, zones: &zones{client: client}},
	}
	if cfg.LoadBalancer.Enabled {
		cloud.loadBalancers = &loadBalancers{client: client, defaults: cfg.LoadBalancer, network: network}
	}
	if cfg.RoutesEnabled && network != nil {
		cloud.routes = &routes{client: client, networkID: networkID}
	}
	return cloud, nil
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

// Initialize is a no-op: the provider needs no Kubernetes client of its own.
func (c *Cloud) Initialize(cloudprovider.ControllerClientBuilder, <-chan struct{}) {}

// LoadBalancer returns the load balancer capability unless it is disabled.
func (c *Cloud) LoadBalancer() (cloudprovider.LoadBalancer, bool) {
	if c.loadBalancers == nil {
		return nil, false
	}
	return c.loadBalancers, true
}

// Instances is not offered: InstancesV2 replaces it.
func (c *Cloud) Instances() (cloudprovider.Instances, bool) { return nil, false }

// InstancesV2 returns the instances capability.
func (c *Cloud) InstancesV2() (cloudprovider.InstancesV2, bool) { return c.instances, true }

// Zones is not offered: InstanceMetadata carries zone and region.
func (c *Cloud) Zones() (cloudprovider.Zones, bool) { return nil, false }

// Clusters is not offered.
func (c *Cloud) Clusters() (cloudprovider.Clusters, bool) { return nil, false }

// Routes returns the routes capability when a network is configured and routes are enabled.
func (c *Cloud) Routes() (cloudprovider.Routes, bool) {
	if c.routes == nil {
		return nil, false
	}
	return c.routes, true
}

// ProviderName returns "hcloud".
func (c *Cloud) ProviderName() string { return ProviderName }

// HasClusterID is false: Hetzner resources carry no cluster id; a load balancer belongs to its Service
// by the service-uid label.
func (c *Cloud) HasClusterID() bool { return false }
