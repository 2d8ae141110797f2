package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"
)

// instances is InstancesV2: how the node controllers learn about the server behind a Node.
type instances struct {
	cloud *cloud
}

// serverOf finds a Node's server: by the providerID once the Node has one, before that by the Node's name
// (the kubelet names its Node after the machine). nil, nil means there is no such server.
func (i *instances) serverOf(ctx context.Context, node *v1.Node) (*hcloud.Server, error) {
	if node.Spec.ProviderID == "" {
		server, _, err := i.cloud.client.Server.GetByName(ctx, node.Name)
		return server, err
	}
	id, err := serverID(node.Spec.ProviderID)
	if err != nil {
		return nil, err
	}
	server, _, err := i.cloud.client.Server.GetByID(ctx, id)
	return server, err
}

// serverID is the number in hcloud://<id>.
func serverID(providerID string) (int64, error) {
	id, ok := strings.CutPrefix(providerID, providerName+"://")
	if !ok {
		return 0, fmt.Errorf("providerID %q is not %s://<id>", providerID, providerName)
	}
	return strconv.ParseInt(id, 10, 64)
}

// InstanceMetadata is called by the cloud-node controller for a Node that still has the
// node.cloudprovider.kubernetes.io/uninitialized taint. What it returns becomes the Node's providerID,
// its node.kubernetes.io/instance-type and topology.kubernetes.io/region and zone labels and its
// addresses; then the controller removes the taint and pods can be scheduled there.
func (i *instances) InstanceMetadata(ctx context.Context, node *v1.Node) (*cloudprovider.InstanceMetadata, error) {
	server, err := i.serverOf(ctx, node)
	if err != nil {
		return nil, err
	}
	if server == nil {
		return nil, cloudprovider.InstanceNotFound
	}
	return &cloudprovider.InstanceMetadata{
		ProviderID:    fmt.Sprintf("%s://%d", providerName, server.ID),
		InstanceType:  server.ServerType.Name,
		Region:        server.Location.Name,
		Zone:          server.Location.Name,
		NodeAddresses: i.addresses(server),
	}, nil
}

// addresses: the server's name, its public IPv4 (ExternalIP) and its address in the cluster network (InternalIP).
func (i *instances) addresses(server *hcloud.Server) []v1.NodeAddress {
	addresses := []v1.NodeAddress{{Type: v1.NodeHostName, Address: server.Name}}
	if !server.PublicNet.IPv4.IsUnspecified() {
		addresses = append(addresses, v1.NodeAddress{Type: v1.NodeExternalIP, Address: server.PublicNet.IPv4.IP.String()})
	}
	for _, private := range server.PrivateNet {
		if i.cloud.network != nil && private.Network.ID == i.cloud.network.ID {
			addresses = append(addresses, v1.NodeAddress{Type: v1.NodeInternalIP, Address: private.IP.String()})
		}
	}
	return addresses
}
