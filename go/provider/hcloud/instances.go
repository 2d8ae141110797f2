package hcloud

import (
	"context"
	"fmt"
	"sync"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/names"

	"ccm-sandbox/go/internal/providerkit"
)

var _ cloudprovider.InstancesV2 = (*instances)(nil)

// providedByLabel tells cloud servers from dedicated ones in Hetzner's CCM; this provider only knows cloud
// servers, and sets it so Nodes look the same under either CCM.
const providedByLabel = "instance.hetzner.cloud/provided-by"

// instances maps Nodes to servers.
type instances struct {
	client    *hcloud.Client
	networkID int64
	family    string
	zones     *zones
}

// serverFor returns the node's server: by providerID when set, else by name; nil only when the API says
// it does not exist (the lifecycle controller deletes a Node whose server does not exist, so every other
// failure must be an error).
func (i *instances) serverFor(ctx context.Context, node *v1.Node) (*hcloud.Server, error) {
	if node.Spec.ProviderID == "" {
		server, _, err := i.client.Server.GetByName(ctx, node.Name)
		return server, err
	}
	id, err := serverIDFromProviderID(node.Spec.ProviderID)
	if err != nil {
		return nil, err
	}
	server, _, err := i.client.Server.GetByID(ctx, id)
	return server, err
}

func (i *instances) lookup(ctx context.Context, node *v1.Node, controller, method string) (*hcloud.Server, error) {
	server, err := i.serverFor(withCaller(ctx, controller, node.Name, method), node)
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", node.Name, err)
	}
	return server, nil
}

// InstanceExists is false only when the API answers that the node's server does not exist.
func (i *instances) InstanceExists(ctx context.Context, node *v1.Node) (_ bool, err error) {
	defer providerkit.Wrap(&err, ProviderName, "InstanceExists")
	server, err := i.lookup(ctx, node, names.CloudNodeLifecycleController, "InstanceExists")
	return server != nil, err
}

// InstanceShutdown is true for a server whose status is off.
func (i *instances) InstanceShutdown(ctx context.Context, node *v1.Node) (_ bool, err error) {
	defer providerkit.Wrap(&err, ProviderName, "InstanceShutdown")
	server, err := i.lookup(ctx, node, names.CloudNodeLifecycleController, "InstanceShutdown")
	return server != nil && server.Status == hcloud.ServerStatusOff, err
}

// InstanceMetadata returns the providerID, server type, zone (datacenter), region (location) and addresses.
func (i *instances) InstanceMetadata(ctx context.Context, node *v1.Node) (_ *cloudprovider.InstanceMetadata, err error) {
	defer providerkit.Wrap(&err, ProviderName, "InstanceMetadata")
	ctx = withCaller(ctx, names.CloudNodeController, node.Name, "InstanceMetadata")
	server, err := i.lookup(ctx, node, names.CloudNodeController, "InstanceMetadata")
	if err != nil {
		return nil, err
	}
	if server == nil {
		return nil, cloudprovider.InstanceNotFound
	}
	md := &cloudprovider.InstanceMetadata{
		ProviderID:       providerID(server.ID),
		NodeAddresses:    nodeAddresses(server, i.networkID, i.family),
		AdditionalLabels: map[string]string{providedByLabel: "cloud"},
	}
	if server.ServerType != nil {
		md.InstanceType = server.ServerType.Name
	}
	if server.Location != nil {
		md.Region = server.Location.Name
		if md.Zone, err = i.zones.of(ctx, server.Location.Name); err != nil {
			return nil, fmt.Errorf("node %s: %w", node.Name, err)
		}
	}
	return md, nil
}

// zones maps a location to the name of its datacenter (servers no longer name theirs in the API), read
// once and again when a location is not known yet.
type zones struct {
	client *hcloud.Client
	mu     sync.Mutex
	byLoc  map[string]string
}

func (z *zones) of(ctx context.Context, location string) (string, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if name, ok := z.byLoc[location]; ok {
		return name, nil
	}
	datacenters, err := z.client.Datacenter.All(ctx)
	if err != nil {
		return "", err
	}
	z.byLoc = datacenterByLocation(datacenters)
	return or(z.byLoc[location], location), nil
}

// datacenterByLocation picks one datacenter per location, the one with the lowest id (a location's first),
// so the answer does not depend on the API's order.
func datacenterByLocation(datacenters []*hcloud.Datacenter) map[string]string {
	first := map[string]*hcloud.Datacenter{}
	for _, dc := range datacenters {
		if dc.Location == nil {
			continue
		}
		if current, ok := first[dc.Location.Name]; !ok || dc.ID < current.ID {
			first[dc.Location.Name] = dc
		}
	}
	out := make(map[string]string, len(first))
	for location, dc := range first {
		out[location] = dc.Name
	}
	return out
}
