package linode

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/linode/linodego/v2"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2"
)

// ProviderName is the name passed to --cloud-provider and the scheme of every providerID.
const ProviderName = "linode"

// requestTimeout bounds one HTTP exchange with the API.
const requestTimeout = 30 * time.Second

var _ cloudprovider.Interface = (*Cloud)(nil)

func init() {
	cloudprovider.RegisterCloudProvider(ProviderName, func(config io.Reader) (cloudprovider.Interface, error) {
		if config != nil {
			if data, _ := io.ReadAll(config); len(data) > 0 {
				klog.Warningf("the linode provider ignores --cloud-config; it is configured by LINODE_* environment variables")
			}
		}
		cfg, err := LoadConfig(os.LookupEnv)
		if err != nil {
			return nil, err
		}
		return NewCloud(context.Background(), cfg)
	})
}

// Cloud is the linode cloudprovider.Interface.
type Cloud struct {
	client        *linodego.Client
	instances     *instances
	loadBalancers *loadBalancers
}

// NewClient is a linodego client for cfg, set up as Linode's CCM sets it up (UseURL keeps the scheme, host
// and API version of the URL).
func NewClient(cfg Config) (*linodego.Client, error) {
	c, err := linodego.NewClient(&http.Client{Timeout: requestTimeout})
	if err != nil {
		return nil, err
	}
	if _, err := c.UseURL(cfg.URL); err != nil {
		return nil, err
	}
	c.SetToken(cfg.Token)
	c.SetUserAgent("ccm-sandbox-upstream-ccm " + linodego.DefaultUserAgent)
	return &c, nil
}

// NewCloud builds the provider after one authenticated call (the profile), so a wrong URL or token fails
// at start with one line.
func NewCloud(ctx context.Context, cfg Config) (*Cloud, error) {
	client, err := NewClient(cfg)
	if err != nil {
		return nil, err
	}
	probe, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	if _, err := client.GetProfile(probe); err != nil {
		return nil, fmt.Errorf("cannot use the Linode API at %s: %w", cfg.URL, err)
	}
	return &Cloud{client: client, instances: &instances{client: client}, loadBalancers: &loadBalancers{client: client, region: cfg.Region}}, nil
}

// Initialize is part of cloudprovider.Interface; the provider needs nothing from the controller manager.
func (c *Cloud) Initialize(cloudprovider.ControllerClientBuilder, <-chan struct{}) {}

// LoadBalancer returns the NodeBalancer implementation.
func (c *Cloud) LoadBalancer() (cloudprovider.LoadBalancer, bool) { return c.loadBalancers, true }

// Instances is the deprecated interface; InstancesV2 replaces it.
func (c *Cloud) Instances() (cloudprovider.Instances, bool) { return nil, false }

// InstancesV2 returns the instance implementation.
func (c *Cloud) InstancesV2() (cloudprovider.InstancesV2, bool) { return c.instances, true }

// Zones is not provided: Linode has regions only, and InstancesV2 reports them.
func (c *Cloud) Zones() (cloudprovider.Zones, bool) { return nil, false }

// Clusters is not provided.
func (c *Cloud) Clusters() (cloudprovider.Clusters, bool) { return nil, false }

// Routes is not provided yet: Linode's route controller programs VPC interfaces' ip_ranges, which the dialect
// serves, but this provider does not use them.
func (c *Cloud) Routes() (cloudprovider.Routes, bool) { return nil, false }

// ProviderName returns "linode".
func (c *Cloud) ProviderName() string { return ProviderName }

// HasClusterID is false: NodeBalancers are found by their label, which carries the Service's UID.
func (c *Cloud) HasClusterID() bool { return false }
