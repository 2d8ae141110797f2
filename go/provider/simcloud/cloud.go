package simcloud

import (
	"context"
	"fmt"
	"io"
	"os"

	cloudprovider "k8s.io/cloud-provider"

	"ccm-sandbox/go/provider/simcloud/client"
)

// ProviderName is the name passed to --cloud-provider and the scheme of every providerID.
const ProviderName = "simcloud"

var _ cloudprovider.Interface = (*Cloud)(nil)

func init() {
	cloudprovider.RegisterCloudProvider(ProviderName, func(config io.Reader) (cloudprovider.Interface, error) {
		cfg, err := LoadConfig(config, os.Getenv)
		if err != nil {
			return nil, err
		}
		return NewCloud(context.Background(), cfg)
	})
}

// Cloud is the simcloud cloudprovider.Interface. Capabilities switched off in the configuration answer
// (nil, false), so the cloud controller manager does not start their controllers.
type Cloud struct {
	client        *client.Client
	instances     *instances
	loadBalancers *loadBalancers
	routes        *routes
}

// NewCloud builds the provider and makes one cheap authenticated call, so a wrong endpoint or token fails
// at start with one line naming the endpoint.
func NewCloud(ctx context.Context, cfg Config) (*Cloud, error) {
	c, err := client.New(cfg.Endpoint, cfg.Token, client.WithTimeout(cfg.RequestTimeout), client.WithUserAgent("ccm-sandbox-upstream-ccm"), client.WithObserver(observeCall))
	if err != nil {
		return nil, fmt.Errorf("%s/%s: %w", EnvEndpoint, EnvToken, err)
	}
	probe, cancel := context.WithTimeout(client.WithCaller(ctx, client.Caller{Controller: "upstream-ccm", Key: "startup-probe", Method: "Initialize"}), cfg.RequestTimeout)
	defer cancel()
	if _, _, err := c.ListServers(probe, client.ListOpts{PerPage: 1}); err != nil {
		return nil, fmt.Errorf("cannot use simcloud at %s: %w", cfg.Endpoint, err)
	}
	cloud := &Cloud{client: c, instances: &instances{client: c}}
	if cfg.LoadBalancersEnabled {
		cloud.loadBalancers = newLoadBalancers(c, cfg.LoadBalancerStrategy)
	}
	if cfg.RoutesEnabled && cfg.Network != "" {
		cloud.routes = &routes{client: c, network: cfg.Network}
	}
	return cloud, nil
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

// Routes returns the routes capability when enabled and a network is configured.
func (c *Cloud) Routes() (cloudprovider.Routes, bool) {
	if c.routes == nil {
		return nil, false
	}
	return c.routes, true
}

// ProviderName returns "simcloud".
func (c *Cloud) ProviderName() string { return ProviderName }

// HasClusterID is true: every resource is labelled with the --cluster-name it was created for.
func (c *Cloud) HasClusterID() bool { return true }
