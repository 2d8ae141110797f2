package simcloud

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/names"

	"ccm-sandbox/go/provider/simcloud/client"
)

var _ cloudprovider.InstancesV2 = (*instances)(nil)

// providerIDPrefix starts every providerID; the format is an API: a Node's providerID never changes.
const providerIDPrefix = ProviderName + "://"

var serverIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// instances maps Nodes to simcloud servers.
type instances struct {
	client *client.Client
}

// serverIDFromProviderID returns the server id of "simcloud://<id>".
func serverIDFromProviderID(providerID string) (string, error) {
	id, ok := strings.CutPrefix(providerID, providerIDPrefix)
	if !ok || !serverIDPattern.MatchString(id) {
		return "", fmt.Errorf("providerID %q is not %s<server-id>", providerID, providerIDPrefix)
	}
	return id, nil
}

// serverFor returns the node's server: by providerID when set, else by name; nil only when simcloud says
// it does not exist. Any other failure is an error, because the lifecycle controller deletes a Node whose
// server does not exist.
func (i *instances) serverFor(ctx context.Context, node *v1.Node) (*client.Server, error) {
	if node.Spec.ProviderID == "" {
		return i.client.ServerByName(ctx, node.Name)
	}
	id, err := serverIDFromProviderID(node.Spec.ProviderID)
	if err != nil {
		return nil, err
	}
	server, err := i.client.GetServer(ctx, id)
	if client.IsNotFound(err) {
		return nil, nil
	}
	return server, err
}

func (i *instances) lookup(ctx context.Context, node *v1.Node, controller, method string) (*client.Server, error) {
	ctx = client.WithCaller(ctx, client.Caller{Controller: controller, Key: node.Name, Method: method})
	server, err := i.serverFor(ctx, node)
	if err != nil {
		return nil, fmt.Errorf("%s: node %s: %w", method, node.Name, err)
	}
	return server, nil
}

// InstanceExists is false only when simcloud answers that the node's server does not exist.
func (i *instances) InstanceExists(ctx context.Context, node *v1.Node) (bool, error) {
	server, err := i.lookup(ctx, node, names.CloudNodeLifecycleController, "InstanceExists")
	return server != nil, err
}

// InstanceShutdown is true for a server that is powered off.
func (i *instances) InstanceShutdown(ctx context.Context, node *v1.Node) (bool, error) {
	server, err := i.lookup(ctx, node, names.CloudNodeLifecycleController, "InstanceShutdown")
	return server != nil && server.Status == client.ServerOff, err
}

// InstanceMetadata returns the providerID, type, zone, region and addresses of the node's server.
func (i *instances) InstanceMetadata(ctx context.Context, node *v1.Node) (*cloudprovider.InstanceMetadata, error) {
	server, err := i.lookup(ctx, node, names.CloudNodeController, "InstanceMetadata")
	if err != nil {
		return nil, err
	}
	if server == nil {
		return nil, cloudprovider.InstanceNotFound
	}
	return &cloudprovider.InstanceMetadata{
		ProviderID:    providerIDPrefix + server.ID,
		InstanceType:  server.ServerType,
		NodeAddresses: nodeAddresses(server),
		Zone:          server.Zone,
		Region:        server.Region,
	}, nil
}

// nodeAddresses: InternalIP = the private address, ExternalIP = the public one, Hostname = the server name.
func nodeAddresses(server *client.Server) []v1.NodeAddress {
	var addresses []v1.NodeAddress
	if ip := privateIP(server); ip != "" {
		addresses = append(addresses, v1.NodeAddress{Type: v1.NodeInternalIP, Address: ip})
	}
	if server.PublicIPv4 != nil {
		addresses = append(addresses, v1.NodeAddress{Type: v1.NodeExternalIP, Address: *server.PublicIPv4})
	}
	return append(addresses, v1.NodeAddress{Type: v1.NodeHostName, Address: server.Name})
}

// privateIP is the primary private address, else the first network's.
func privateIP(server *client.Server) string {
	if server.PrivateIPv4 != nil {
		return *server.PrivateIPv4
	}
	if len(server.PrivateNetworks) > 0 {
		return server.PrivateNetworks[0].IP
	}
	return ""
}
