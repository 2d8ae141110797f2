package hcloud

import (
	"net"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	v1 "k8s.io/api/core/v1"
)

// nodeAddresses are a server's Node addresses, in the order Hetzner's CCM reports them: the Hostname (the
// server name), the public IPv4 and/or the first address of the public IPv6 /64 as ExternalIPs (per
// address family), then the server's address in the configured network as InternalIP.
func nodeAddresses(server *hcloud.Server, networkID int64, family string) []v1.NodeAddress {
	addresses := []v1.NodeAddress{{Type: v1.NodeHostName, Address: server.Name}}
	if family != addressFamilyIPv6 && !server.PublicNet.IPv4.IsUnspecified() {
		addresses = append(addresses, v1.NodeAddress{Type: v1.NodeExternalIP, Address: server.PublicNet.IPv4.IP.String()})
	}
	if family != addressFamilyIPv4 && !server.PublicNet.IPv6.IsUnspecified() {
		addresses = append(addresses, v1.NodeAddress{Type: v1.NodeExternalIP, Address: firstHostIn(server.PublicNet.IPv6.IP).String()})
	}
	if ip := privateIPIn(server, networkID); ip != nil {
		addresses = append(addresses, v1.NodeAddress{Type: v1.NodeInternalIP, Address: ip.String()})
	}
	return addresses
}

// firstHostIn is <network>::1, the address a server answers on in its public /64.
func firstHostIn(network net.IP) net.IP {
	host := make(net.IP, len(network))
	copy(host, network)
	host[len(host)-1] |= 1
	return host
}

// privateIPIn is the server's address in the network (nil when not attached or no network is configured).
func privateIPIn(server *hcloud.Server, networkID int64) net.IP {
	if networkID == 0 {
		return nil
	}
	for _, n := range server.PrivateNet {
		if n.Network != nil && n.Network.ID == networkID {
			return n.IP
		}
	}
	return nil
}
