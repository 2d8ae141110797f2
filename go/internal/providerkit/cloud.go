package providerkit

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2"
)

var _ cloudprovider.Interface = (*Cloud)(nil)

// Capabilities are what a provider offers. A nil capability answers (nil, false), so the cloud controller
// manager does not start its controllers; set a field only to a non-nil value (a nil pointer in an
// interface is not nil).
type Capabilities struct {
	InstancesV2  cloudprovider.InstancesV2
	LoadBalancer cloudprovider.LoadBalancer
	Routes       cloudprovider.Routes
	// ClusterID answers HasClusterID: whether the provider's resources carry the --cluster-name.
	ClusterID bool
	// Initialize, when set, is given the manager's Kubernetes client builder before any controller runs: for a
	// capability that writes Kubernetes objects itself (DigitalOcean's CCM annotates Services, ours with it).
	Initialize func(cloudprovider.ControllerClientBuilder, <-chan struct{})
}

// Cloud is a cloudprovider.Interface made of a provider's capabilities. The deprecated Instances, Zones
// and Clusters are never offered: InstancesV2 reports zones and regions.
type Cloud struct {
	name string
	caps Capabilities
}

// NewCloud assembles the provider called name.
func NewCloud(name string, caps Capabilities) *Cloud { return &Cloud{name: name, caps: caps} }

// Initialize passes the client builder to Capabilities.Initialize, if set; else it does nothing.
func (c *Cloud) Initialize(builder cloudprovider.ControllerClientBuilder, stop <-chan struct{}) {
	if c.caps.Initialize != nil {
		c.caps.Initialize(builder, stop)
	}
}

// LoadBalancer returns the load balancer capability, if offered.
func (c *Cloud) LoadBalancer() (cloudprovider.LoadBalancer, bool) {
	return c.caps.LoadBalancer, c.caps.LoadBalancer != nil
}

// Instances is never offered: InstancesV2 replaces it.
func (c *Cloud) Instances() (cloudprovider.Instances, bool) { return nil, false }

// InstancesV2 returns the instances capability, if offered.
func (c *Cloud) InstancesV2() (cloudprovider.InstancesV2, bool) {
	return c.caps.InstancesV2, c.caps.InstancesV2 != nil
}

// Zones is never offered: InstanceMetadata carries zone and region.
func (c *Cloud) Zones() (cloudprovider.Zones, bool) { return nil, false }

// Clusters is never offered.
func (c *Cloud) Clusters() (cloudprovider.Clusters, bool) { return nil, false }

// Routes returns the routes capability, if offered.
func (c *Cloud) Routes() (cloudprovider.Routes, bool) { return c.caps.Routes, c.caps.Routes != nil }

// ProviderName is the name given to NewCloud.
func (c *Cloud) ProviderName() string { return c.name }

// HasClusterID is Capabilities.ClusterID.
func (c *Cloud) HasClusterID() bool { return c.caps.ClusterID }

// Register makes a provider selectable with --cloud-provider=name. When the cloud controller manager
// starts it, load reads the configuration from the --cloud-config file (nil without one) and the process's
// environment, and newCloud builds the provider from it.
func Register[C any](name string, load func(file io.Reader, env Lookup) (C, error), newCloud func(context.Context, C) (*Cloud, error)) {
	cloudprovider.RegisterCloudProvider(name, func(file io.Reader) (cloudprovider.Interface, error) {
		cfg, err := load(file, os.LookupEnv)
		if err != nil {
			return nil, err
		}
		cloud, err := newCloud(context.Background(), cfg)
		if err != nil {
			// Not `return cloud, err`: a nil *Cloud would reach the manager as a non-nil Interface.
			return nil, err
		}
		return cloud, nil
	})
}

// EnvOnly is the load of a provider configured by its environment alone, as the clouds' own CCMs are: a
// --cloud-config file is ignored with a warning saying what configures the provider instead.
func EnvOnly[C any](configuredBy string, load func(Lookup) (C, error)) func(io.Reader, Lookup) (C, error) {
	return func(file io.Reader, env Lookup) (C, error) {
		if file != nil {
			if data, _ := io.ReadAll(file); len(data) > 0 {
				klog.Warningf("--cloud-config is ignored: this provider is configured by %s", configuredBy)
			}
		}
		return load(env)
	}
}

// RequestTimeout bounds one HTTP exchange with a cloud's API.
const RequestTimeout = 30 * time.Second

// Probe makes a provider's first call, within timeout, so that a wrong URL or token fails at start with
// one line: "cannot use <api> at <url>: <cause>".
func Probe(ctx context.Context, timeout time.Duration, api, url string, call func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := call(ctx); err != nil {
		return fmt.Errorf("cannot use %s at %s: %w", api, url, err)
	}
	return nil
}
