package linode

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/linode/linodego/v2"
	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"

	"ccm-sandbox/go/internal/providerkit"
)

// instances finds Linode instances for providerkit.Instances.
type instances struct {
	client *linodego.Client
}

// newInstances is the InstancesV2 capability: a node's instance by providerID, else by label; shut down
// when offline or shutting down, as Linode's CCM decides it.
func newInstances(client *linodego.Client) *providerkit.Instances[linodego.Instance] {
	i := &instances{client: client}
	return &providerkit.Instances[linodego.Instance]{
		Provider:     ProviderName,
		ByProviderID: i.byProviderID,
		ByName:       i.byLabel,
		Missing:      linodego.IsNotFound,
		Off: func(in *linodego.Instance) bool {
			return in.Status == linodego.InstanceOffline || in.Status == linodego.InstanceShuttingDown
		},
		Metadata: i.metadata,
	}
}

// ProviderID is linode://<instance id>.
func ProviderID(id int) string { return fmt.Sprintf("%s://%d", ProviderName, id) }

// ParseProviderID returns the instance id of linode://<id> (or a bare <id>).
func ParseProviderID(providerID string) (int, error) {
	return providerkit.NumericID(ProviderName, providerID)
}

func (i *instances) byProviderID(ctx context.Context, providerID string) (*linodego.Instance, error) {
	id, err := ParseProviderID(providerID)
	if err != nil {
		return nil, err
	}
	return i.client.GetInstance(ctx, id)
}

// byLabel finds the instance labelled like the node.
func (i *instances) byLabel(ctx context.Context, label string) (*linodego.Instance, error) {
	filter, err := json.Marshal(map[string]string{"label": label})
	if err != nil {
		return nil, err
	}
	list, err := i.client.ListInstances(ctx, &linodego.ListOptions{Filter: string(filter)})
	if err != nil || len(list) == 0 {
		return nil, err
	}
	return &list[0], nil
}

func (i *instances) metadata(ctx context.Context, in *linodego.Instance) (*cloudprovider.InstanceMetadata, error) {
	ips, err := i.client.GetInstanceIPAddresses(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return &cloudprovider.InstanceMetadata{ProviderID: ProviderID(in.ID), InstanceType: in.Type, Region: in.Region, NodeAddresses: addresses(in.Label, ips)}, nil
}

// addresses: the private IPv4s are InternalIPs, the public ones ExternalIPs; an instance without a
// private address uses its public one as InternalIP too, so the node is reachable inside the cluster.
func addresses(label string, ips *linodego.InstanceIPAddressResponse) []v1.NodeAddress {
	out := []v1.NodeAddress{{Type: v1.NodeHostName, Address: label}}
	if ips == nil || ips.IPv4 == nil {
		return out
	}
	for _, ip := range ips.IPv4.Private {
		out = append(out, v1.NodeAddress{Type: v1.NodeInternalIP, Address: ip.Address})
	}
	if len(ips.IPv4.Private) == 0 && len(ips.IPv4.Public) > 0 {
		out = append(out, v1.NodeAddress{Type: v1.NodeInternalIP, Address: ips.IPv4.Public[0].Address})
	}
	for _, ip := range ips.IPv4.Public {
		out = append(out, v1.NodeAddress{Type: v1.NodeExternalIP, Address: ip.Address})
	}
	return out
}
