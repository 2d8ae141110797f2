package brightbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"

	brightbox "github.com/brightbox/gobrightbox/v2"
	"github.com/brightbox/gobrightbox/v2/enums/serverstatus"
	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"

	"ccm-sandbox/go/internal/providerkit"
)

// serverID is the form of a Brightbox server id.
var serverID = regexp.MustCompile(`^srv-[0-9a-z]{5,11}$`)

// newInstances is the InstancesV2 capability: a node's server by providerID, else by the node's name; gone
// once deleted or failed, and shut down while inactive or unavailable, as Brightbox's CCM decides both.
func newInstances(c *brightbox.Client) *providerkit.Instances[brightbox.Server] {
	return &providerkit.Instances[brightbox.Server]{
		Provider: ProviderName,
		ByProviderID: func(ctx context.Context, providerID string) (*brightbox.Server, error) {
			id, err := ParseProviderID(providerID)
			if err != nil {
				return nil, err
			}
			s, err := c.Server(ctx, id)
			return existing(s), err
		},
		ByName:  func(ctx context.Context, name string) (*brightbox.Server, error) { return serverByName(ctx, c, name) },
		Missing: isNotFound,
		Off: func(s *brightbox.Server) bool {
			return s.Status == serverstatus.Inactive || s.Status == serverstatus.Unavailable
		},
		Metadata: func(_ context.Context, s *brightbox.Server) (*cloudprovider.InstanceMetadata, error) {
			return metadata(s)
		},
	}
}

// existing is s, or nil for a server Brightbox still shows but that no longer exists.
func existing(s *brightbox.Server) *brightbox.Server {
	if s == nil || s.Status == serverstatus.Deleted || s.Status == serverstatus.Failed {
		return nil
	}
	return s
}

// serverByName: on Brightbox a Node's name is its server's id (the server's hostname); a sandbox's Nodes carry
// the server's name instead, so any other name is looked for among the servers' names.
func serverByName(ctx context.Context, c *brightbox.Client, name string) (*brightbox.Server, error) {
	if serverID.MatchString(name) {
		s, err := c.Server(ctx, name)
		if isNotFound(err) {
			return nil, nil
		}
		return existing(s), err
	}
	list, err := c.Servers(ctx)
	for i := range list {
		if s := existing(&list[i]); s != nil && s.Name == name {
			return s, nil
		}
	}
	return nil, err
}

// ProviderID is brightbox://<server id>, as Brightbox's CCM writes it.
func ProviderID(id string) string { return ProviderName + "://" + id }

// ParseProviderID returns the server id of brightbox://<id> (or a bare <id>).
func ParseProviderID(providerID string) (string, error) {
	id, found := strings.CutPrefix(providerID, ProviderName+"://")
	if (!found && strings.Contains(providerID, "://")) || !serverID.MatchString(id) {
		return "", errors.New("providerID " + providerID + " is not brightbox://srv-…")
	}
	return id, nil
}

// isNotFound is gobrightbox's error for a 404.
func isNotFound(err error) bool {
	e, ok := errors.AsType[*brightbox.APIError](err)
	return ok && e.StatusCode == http.StatusNotFound
}

// RegionOf is the region of a zone handle: what precedes its last dash (gb1-a is in gb1).
func RegionOf(zone string) (string, error) {
	i := strings.LastIndex(zone, "-")
	if i <= 0 {
		return "", fmt.Errorf("zone handle %q is not <region>-<zone>", zone)
	}
	return zone[:i], nil
}

func metadata(s *brightbox.Server) (*cloudprovider.InstanceMetadata, error) {
	if s.Zone == nil || s.ServerType == nil {
		return nil, fmt.Errorf("server %s has no zone or server type", s.ID)
	}
	region, err := RegionOf(s.Zone.Handle)
	if err != nil {
		return nil, err
	}
	addrs, err := addresses(s)
	if err != nil {
		return nil, err
	}
	return &cloudprovider.InstanceMetadata{
		ProviderID: ProviderID(s.ID), InstanceType: s.ServerType.Handle, Zone: s.Zone.Handle, Region: region, NodeAddresses: addrs,
	}, nil
}

// addresses are the server's names and, as ExternalIPs, its interfaces' IPv4 and IPv6 addresses and its cloud
// IPs (with their FQDNs), as Brightbox's CCM lists them; an address the server does not have (empty) is left
// out, one that does not parse is an error.
func addresses(s *brightbox.Server) ([]v1.NodeAddress, error) {
	out := []v1.NodeAddress{{Type: v1.NodeHostName, Address: s.Hostname}, {Type: v1.NodeExternalDNS, Address: s.Fqdn}}
	add := func(kind v1.NodeAddressType, raw, of string) error {
		if raw == "" {
			return nil
		}
		ip := net.ParseIP(raw)
		if ip == nil {
			return fmt.Errorf("%s has an invalid address %q", of, raw)
		}
		out = append(out, v1.NodeAddress{Type: kind, Address: ip.String()})
		return nil
	}
	for _, iface := range s.Interfaces {
		if err := errors.Join(add(v1.NodeExternalIP, iface.IPv4Address, "server "+s.ID), add(v1.NodeExternalIP, iface.IPv6Address, "server "+s.ID)); err != nil {
			return nil, err
		}
	}
	for _, cip := range s.CloudIPs {
		if err := add(v1.NodeExternalIP, cip.PublicIP, "cloud IP "+cip.ID); err != nil {
			return nil, err
		}
		if cip.Fqdn != "" {
			out = append(out, v1.NodeAddress{Type: v1.NodeExternalDNS, Address: cip.Fqdn})
		}
	}
	return out, nil
}
