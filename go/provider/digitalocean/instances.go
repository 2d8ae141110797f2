package digitalocean

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/digitalocean/godo"
	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"

	"ccm-sandbox/go/internal/providerkit"
)

// instances finds droplets for providerkit.Instances.
type instances struct {
	client *godo.Client
}

// newInstances is the InstancesV2 capability: a node's droplet by providerID, else by name; shut down when
// off, as DigitalOcean's CCM decides it.
func newInstances(client *godo.Client) *providerkit.Instances[godo.Droplet] {
	i := &instances{client: client}
	return &providerkit.Instances[godo.Droplet]{
		Provider:     ProviderName,
		ByProviderID: i.byProviderID,
		ByName:       i.byName,
		Missing:      isNotFound,
		Off:          func(d *godo.Droplet) bool { return d.Status == "off" },
		Metadata:     metadata,
	}
}

// ProviderID is digitalocean://<droplet id>.
func ProviderID(id int) string { return fmt.Sprintf("%s://%d", ProviderName, id) }

// ParseProviderID returns the droplet id of digitalocean://<id> (or a bare <id>).
func ParseProviderID(providerID string) (int, error) {
	return providerkit.NumericID(ProviderName, providerID)
}

func isNotFound(err error) bool {
	var e *godo.ErrorResponse
	return errors.As(err, &e) && e.Response != nil && e.Response.StatusCode == http.StatusNotFound
}

func (i *instances) byProviderID(ctx context.Context, providerID string) (*godo.Droplet, error) {
	id, err := ParseProviderID(providerID)
	if err != nil {
		return nil, err
	}
	d, _, err := i.client.Droplets.Get(ctx, id)
	return d, err
}

func (i *instances) byName(ctx context.Context, name string) (*godo.Droplet, error) {
	list, _, err := i.client.Droplets.ListByName(ctx, name, &godo.ListOptions{PerPage: 200})
	if err != nil || len(list) == 0 {
		return nil, err
	}
	return &list[0], nil
}

func metadata(_ context.Context, d *godo.Droplet) (*cloudprovider.InstanceMetadata, error) {
	region := ""
	if d.Region != nil {
		region = d.Region.Slug
	}
	return &cloudprovider.InstanceMetadata{ProviderID: ProviderID(d.ID), InstanceType: d.SizeSlug, Region: region, NodeAddresses: addresses(d)}, nil
}

// addresses: private IPv4s are InternalIPs, public ones ExternalIPs; a droplet without a private address
// uses its public one as InternalIP too, so the node is reachable inside the cluster.
func addresses(d *godo.Droplet) []v1.NodeAddress {
	out := []v1.NodeAddress{{Type: v1.NodeHostName, Address: d.Name}}
	if d.Networks == nil {
		return out
	}
	var public []string
	for _, n := range d.Networks.V4 {
		if n.Type == "private" {
			out = append(out, v1.NodeAddress{Type: v1.NodeInternalIP, Address: n.IPAddress})
		} else if n.Type == "public" {
			public = append(public, n.IPAddress)
		}
	}
	if len(out) == 1 && len(public) > 0 {
		out = append(out, v1.NodeAddress{Type: v1.NodeInternalIP, Address: public[0]})
	}
	for _, ip := range public {
		out = append(out, v1.NodeAddress{Type: v1.NodeExternalIP, Address: ip})
	}
	return out
}
