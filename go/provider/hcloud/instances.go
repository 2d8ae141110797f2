package hcloud

import (
	"context"

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
	// zoneLabel says whether metadata carries a zone (HCLOUD_INSTANCES_ZONE_LABEL_ENABLED).
	zoneLabel bool
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

// metadata is the providerID, server type, region (location), zone and addresses.
func (i *instances) metadata(_ context.Context, server *hcloud.Server) (*cloudprovider.InstanceMetadata, error) {
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
		if i.zoneLabel {
			md.Zone = zoneOf(server.Location.Name)
		}
	}
	return md, nil
}

// legacyDatacenters names the datacenter the zone label kept for Hetzner's older locations once servers stopped
// naming their datacenter in the API.
var legacyDatacenters = map[string]string{
	"fsn1": "fsn1-dc14", "nbg1": "nbg1-dc3", "hel1": "hel1-dc2", "ash": "ash-dc1", "hil": "hil-dc1", "sin": "sin-dc1",
}

// zoneOf is the zone label Hetzner's CCM (since v1.35) gives a server in a location: the legacy datacenter name
// where one is known, else the location itself (so on any newer location, simcloud's included, the zone label
// equals the region label). It asks the API nothing.
func zoneOf(location string) string {
	if dc, ok := legacyDatacenters[location]; ok {
		return dc
	}
	return location
}
