package digitalocean

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/digitalocean/godo"
	"golang.org/x/oauth2"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2"
)

// ProviderName is the name passed to --cloud-provider and the scheme of every providerID.
const ProviderName = "digitalocean"

// requestTimeout bounds one HTTP exchange with the API.
const requestTimeout = 30 * time.Second

var _ cloudprovider.Interface = (*Cloud)(nil)

func init() {
	cloudprovider.RegisterCloudProvider(ProviderName, func(config io.Reader) (cloudprovider.Interface, error) {
		if config != nil {
			if data, _ := io.ReadAll(config); len(data) > 0 {
				klog.Warningf("the digitalocean provider ignores --cloud-config; it is configured by DO_* and REGION environment variables")
			}
		}
		cfg, err := LoadConfig(os.LookupEnv)
		if err != nil {
			return nil, err
		}
		return NewCloud(context.Background(), cfg)
	})
}

// Cloud is the digitalocean cloudprovider.Interface.
type Cloud struct {
	client        *godo.Client
	instances     *instances
	loadBalancers *loadBalancers
}

// NewClient is a godo client for cfg, set up as DigitalOcean's CCM sets it up: an oauth2 client with the
// token and SetBaseURL with DO_OVERRIDE_URL.
func NewClient(cfg Config) (*godo.Client, error) {
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Timeout: requestTimeout})
	hc := oauth2.NewClient(ctx, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: cfg.Token}))
	return godo.New(hc, godo.SetBaseURL(cfg.URL), godo.SetUserAgent("ccm-sandbox-upstream-ccm"))
}

// NewCloud builds the provider after checking the region against the API's region names, as DigitalOcean's
// CCM does, so a wrong URL, token or region fails at start with one line.
func NewCloud(ctx context.Context, cfg Config) (*Cloud, error) {
	client, err := NewClient(cfg)
	if err != nil {
		return nil, err
	}
	probe, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	regions, _, err := client.Regions.List(probe, &godo.ListOptions{PerPage: 200})
	if err != nil {
		return nil, fmt.Errorf("cannot use the DigitalOcean API at %s: %w", cfg.URL, err)
	}
	known := false
	for _, r := range regions {
		known = known || r.Name == cfg.Region
	}
	if !known {
		return nil, fmt.Errorf("%s=%q is not a region of the API at %s", EnvRegion, cfg.Region, cfg.URL)
	}
	return &Cloud{client: client, instances: &instances{client: client}, loadBalancers: &loadBalancers{client: client, region: cfg.Region}}, nil
}

// Initialize is part of cloudprovider.Interface; the provider needs nothing from the controller manager.
func (c *Cloud) Initialize(cloudprovider.ControllerClientBuilder, <-chan struct{}) {}

// LoadBalancer returns the load balancer implementation.
func (c *Cloud) LoadBalancer() (cloudprovider.LoadBalancer, bool) { return c.loadBalancers, true }

// Instances is the deprecated interface; InstancesV2 replaces it.
func (c *Cloud) Instances() (cloudprovider.Instances, bool) { return nil, false }

// InstancesV2 returns the droplet implementation.
func (c *Cloud) InstancesV2() (cloudprovider.InstancesV2, bool) { return c.instances, true }

// Zones is not provided: DigitalOcean has regions only, and InstancesV2 reports them.
func (c *Cloud) Zones() (cloudprovider.Zones, bool) { return nil, false }

// Clusters is not provided.
func (c *Cloud) Clusters() (cloudprovider.Clusters, bool) { return nil, false }

// Routes is not provided: DigitalOcean's CCM has no route controller either.
func (c *Cloud) Routes() (cloudprovider.Routes, bool) { return nil, false }

// ProviderName returns "digitalocean".
func (c *Cloud) ProviderName() string { return ProviderName }

// HasClusterID is false: load balancers are found by their name, which carries the Service's UID.
func (c *Cloud) HasClusterID() bool { return false }
