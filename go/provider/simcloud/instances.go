package simcloud

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"

	"ccm-sandbox/go/internal/providerkit"
	"ccm-sandbox/go/provider/simcloud/client"
)

// providerIDPrefix starts every providerID; the format is an API: a Node's providerID never changes.
const providerIDPrefix = ProviderName + "://"

var serverIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// instances maps Nodes to simcloud servers for providerkit.Instances.
type instances struct {
	client *client.Client
}

// newInstances is the InstancesV2 capability: a node's server by providerID, else by name; shut down when
// powered off. Every call carries the caller headers of the controller and method.
func newInstances(c *client.Client) *providerkit.Instances[client.Server] {
	i := &instances{client: c}
	return &providerkit.Instances[client.Server]{
		Provider: ProviderName,
		Attribute: func(ctx context.Context, node *v1.Node, call providerkit.Call) context.Context {
			return client.WithCaller(ctx, client.Caller{Controller: call.Controller, Key: node.Name, Method: call.Method})
		},
		ByProviderID: i.byProviderID,
		ByName:       i.client.ServerByName,
		Missing:      missing,
		Off:          func(server *client.Server) bool { return server.Status == client.ServerOff },
		Metadata:     metadata,
	}
}

// VariantLookupErrorNotFound reads any failed lookup as "the server does not exist" (Linode's CCM PRs #99
// and #570, kubernetes #71562): the node-lifecycle controller then deletes a NotReady Node on a 500.
const VariantLookupErrorNotFound = "lookup-error-not-found"

// missing says a lookup's error means the server is gone: simcloud's not_found only.
func missing(err error) bool {
	if faultyVariant(VariantLookupErrorNotFound) {
		return err != nil
	}
	return client.IsNotFound(err)
}

// serverIDFromProviderID returns the server id of "simcloud://<id>".
func serverIDFromProviderID(providerID string) (string, error) {
	id, ok := strings.CutPrefix(providerID, providerIDPrefix)
	if !ok || !serverIDPattern.MatchString(id) {
		return "", fmt.Errorf("providerID %q is not %s<server-id>", providerID, providerIDPrefix)
	}
	return id, nil
}

func (i *instances) byProviderID(ctx context.Context, providerID string) (*client.Server, error) {
	id, err := serverIDFromProviderID(providerID)
	if err != nil {
		return nil, err
	}
	return i.client.GetServer(ctx, id)
}

// metadata is the providerID, type, zone, region and addresses of a server.
func metadata(_ context.Context, server *client.Server) (*cloudprovider.InstanceMetadata, error) {
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
