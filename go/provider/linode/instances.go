package linode

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/linode/linodego/v2"
	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"

	"ccm-sandbox/go/internal/providerkit"
)

var _ cloudprovider.InstancesV2 = (*instances)(nil)

type instances struct {
	client *linodego.Client
}

// ProviderID is linode://<instance id>.
func ProviderID(id int) string { return fmt.Sprintf("%s://%d", ProviderName, id) }

// ParseProviderID returns the instance id of linode://<id> (or a bare <id>).
func ParseProviderID(providerID string) (int, error) {
	id, err := strconv.Atoi(strings.TrimPrefix(providerID, ProviderName+"://"))
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("providerID %q is not linode://<instance id>", providerID)
	}
	return id, nil
}

// lookup finds a node's instance: by providerID when set, else by the instance label equal to the node name.
// A missing instance is (nil, nil).
func (i *instances) lookup(ctx context.Context, node *v1.Node) (*linodego.Instance, error) {
	if node.Spec.ProviderID != "" {
		id, err := ParseProviderID(node.Spec.ProviderID)
		if err != nil {
			return nil, err
		}
		in, err := i.client.GetInstance(ctx, id)
		if linodego.IsNotFound(err) {
			return nil, nil
		}
		return in, err
	}
	filter, err := json.Marshal(map[string]string{"label": node.Name})
	if err != nil {
		return nil, err
	}
	list, err := i.client.ListInstances(ctx, &linodego.ListOptions{Filter: string(filter)})
	if err != nil || len(list) == 0 {
		return nil, err
	}
	return &list[0], nil
}

func (i *instances) InstanceExists(ctx context.Context, node *v1.Node) (_ bool, err error) {
	defer providerkit.Wrap(&err, ProviderName, "InstanceExists")
	in, err := i.lookup(ctx, node)
	return in != nil, err
}

func (i *instances) InstanceShutdown(ctx context.Context, node *v1.Node) (_ bool, err error) {
	defer providerkit.Wrap(&err, ProviderName, "InstanceShutdown")
	in, err := i.lookup(ctx, node)
	if err != nil || in == nil {
		return false, err
	}
	return in.Status == linodego.InstanceOffline || in.Status == linodego.InstanceShuttingDown, nil
}

func (i *instances) InstanceMetadata(ctx context.Context, node *v1.Node) (_ *cloudprovider.InstanceMetadata, err error) {
	defer providerkit.Wrap(&err, ProviderName, "InstanceMetadata")
	in, err := i.lookup(ctx, node)
	if err != nil {
		return nil, err
	}
	if in == nil {
		return nil, cloudprovider.InstanceNotFound
	}
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
