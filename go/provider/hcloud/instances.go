package hcloud

import (
	"cmp"
	"context"
	"sync"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"

	"ccm-sandbox/go/internal/providerkit"
)

// providedByLabel tells cloud servers from dedicated ones in Hetzner's CCM; this provider only knows cloud
// servers, and sets it so Nodes look the same under either CCM.
const providedByLabel = "instance.hetzner.cloud/provided-by"

// instances maps Nodes to servers for providerkit.Instances.
type instances struct {
	client    *hcloud.Client
	networkID int64
	family    string
	zones     *zones
}

// newInstances is the InstancesV2 capability: a node's server by providerID, else by name; shut down when
// its status is off. Every call carries the caller headers of the controller and method.
func newInstances(i *instances) *providerkit.Instances[hcloud.Server] {
	return &providerkit.Instances[hcloud.Server]{
		Provider: ProviderName,
		Attribute: func(ctx context.Context, node *v1.Node, call providerkit.Call) context.Context {
			return withCaller(ctx, call.Controller, node.Name, call.Method)
		},
		ByProviderID: i.byProviderID,
		ByName: func(ctx context.Context, name string) (*hcloud.Server, error) {
			server, _, err := i.client.Server.GetByName(ctx, name)
			return server, err
		},
		Off:      func(server *hcloud.Server) bool { return server.Status == hcloud.ServerStatusOff },
		Metadata: i.metadata,
	}
}

func (i *instances) byProviderID(ctx context.Context, providerID string) (*hcloud.Server, error) {
	id, err := serverIDFromProviderID(providerID)
	if err != nil {
		return nil, err
	}
	server, _, err := i.client.Server.GetByID(ctx, id)
	return server, err
}

// metadata is the providerID, server type, zone (datacenter), region (location) and addresses.
func (i *instances) metadata(ctx context.Context, server *hcloud.Server) (_ *cloudprovider.InstanceMetadata, err error) {
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
			return nil, err
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
	return cmp.Or(z.byLoc[location], location), nil
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
