package linode

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

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

func (i *instances) metadata(_ context.Context, in *linodego.Instance) (*cloudprovider.InstanceMetadata, error) {
	return &cloudprovider.InstanceMetadata{ProviderID: ProviderID(in.ID), InstanceType: in.Type, Region: in.Region, NodeAddresses: addresses(in)}, nil
}

// addresses classifies the instance's addresses as Linode's CCM does (its node cache reads the instance's
// ipv4 list, not the /ips endpoint): an IPv4 in an RFC 1918 range (net.IP.IsPrivate) is an InternalIP,
// any other an ExternalIP, in the order the API lists them, then the SLAAC IPv6 as an ExternalIP. There is
// no fallback: an instance without a private address has no InternalIP, and NodeBalancers cannot use its
// Node, as with Linode's CCM. The sandbox's persona presents private addresses in 192.168.128.0/17.
func addresses(in *linodego.Instance) []v1.NodeAddress {
	out := []v1.NodeAddress{{Type: v1.NodeHostName, Address: in.Label}}
	for _, ip := range in.IPv4 {
		if ip == nil {
			continue
		}
		kind := v1.NodeExternalIP
		if ip.IsPrivate() {
			kind = v1.NodeInternalIP
		}
		out = append(out, v1.NodeAddress{Type: kind, Address: ip.String()})
	}
	if v6 := strings.TrimSuffix(in.IPv6, "/128"); v6 != "" {
		out = append(out, v1.NodeAddress{Type: v1.NodeExternalIP, Address: v6})
	}
	return out
}
