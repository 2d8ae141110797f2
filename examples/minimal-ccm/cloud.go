package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	cloudprovider "k8s.io/cloud-provider"
)

// providerName is the --cloud-provider value and the scheme of every providerID: hcloud://<server id>.
const providerName = "hcloud"

func init() {
	cloudprovider.RegisterCloudProvider(providerName, func(io.Reader) (cloudprovider.Interface, error) {
		return newHcloud()
	})
}

// cloud is our cloudprovider.Interface: a Hetzner API client and the cluster's network.
type cloud struct {
	client *hcloud.Client
	// network is the private network the nodes share (HCLOUD_NETWORK): their InternalIP and the pod routes.
	network *hcloud.Network
}

// newHcloud reads the same variables Hetzner's own CCM reads: HCLOUD_TOKEN, HCLOUD_ENDPOINT (the API's URL,
// here simcloud's Hetzner persona) and HCLOUD_NETWORK.
func newHcloud() (*cloud, error) {
	token := os.Getenv("HCLOUD_TOKEN")
	if token == "" {
		return nil, fmt.Errorf("HCLOUD_TOKEN is not set")
	}
	opts := []hcloud.ClientOption{hcloud.WithToken(token), hcloud.WithApplication("minimal-ccm", "0.1")}
	if endpoint := os.Getenv("HCLOUD_ENDPOINT"); endpoint != "" {
		opts = append(opts, hcloud.WithEndpoint(endpoint))
	}
	c := &cloud{client: hcloud.NewClient(opts...)}
	if name := os.Getenv("HCLOUD_NETWORK"); name != "" {
		network, _, err := c.client.Network.Get(context.Background(), name)
		if err != nil || network == nil {
			return nil, fmt.Errorf("network %q: not found (%v)", name, err)
		}
		c.network = network
	}
	return c, nil
}

// Initialize runs once before the controllers start; nothing to start here.
func (c *cloud) Initialize(cloudprovider.ControllerClientBuilder, <-chan struct{}) {}

// ProviderName is the scheme of the providerIDs this cloud writes.
func (c *cloud) ProviderName() string { return providerName }

// HasClusterID: true, so the manager starts without --allow-untagged-cloud.
func (c *cloud) HasClusterID() bool { return true }

// InstancesV2 is what the node controllers use: instances.go and lifecycle.go.
func (c *cloud) InstancesV2() (cloudprovider.InstancesV2, bool) { return &instances{cloud: c}, true }

// LoadBalancer is offered when loadbalancer.go is built in (-tags loadbalancer); false stops the service
// controller from starting.
func (c *cloud) LoadBalancer() (cloudprovider.LoadBalancer, bool) {
	if newLoadBalancer == nil {
		return nil, false
	}
	return newLoadBalancer(c), true
}

// Routes is offered when routes.go is built in (-tags routes) and there is a network to route in.
func (c *cloud) Routes() (cloudprovider.Routes, bool) {
	if newRoutes == nil || c.network == nil {
		return nil, false
	}
	return newRoutes(c), true
}

// Instances, Zones and Clusters are the older interfaces InstancesV2 replaces: not offered.
func (c *cloud) Instances() (cloudprovider.Instances, bool) { return nil, false }
func (c *cloud) Zones() (cloudprovider.Zones, bool)         { return nil, false }
func (c *cloud) Clusters() (cloudprovider.Clusters, bool)   { return nil, false }

// Set by loadbalancer.go and routes.go when they are built in.
var (
	newLoadBalancer func(*cloud) cloudprovider.LoadBalancer
	newRoutes       func(*cloud) cloudprovider.Routes
)
