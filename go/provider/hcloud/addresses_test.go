package hcloud

import (
	"net"
	"reflect"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	v1 "k8s.io/api/core/v1"
)

func TestNodeAddresses(t *testing.T) {
	_, v6net, _ := net.ParseCIDR("2001:db8:1234::/64")
	full := &hcloud.Server{
		Name: "worker-1",
		PublicNet: hcloud.ServerPublicNet{
			IPv4: hcloud.ServerPublicNetIPv4{IP: net.ParseIP("127.0.0.5")},
			IPv6: hcloud.ServerPublicNetIPv6{IP: v6net.IP, Network: v6net},
		},
		PrivateNet: []hcloud.ServerPrivateNet{
			{Network: &hcloud.Network{ID: 9}, IP: net.ParseIP("127.9.0.2")},
			{Network: &hcloud.Network{ID: 7}, IP: net.ParseIP("127.10.0.2")},
		},
	}
	hostname := v1.NodeAddress{Type: v1.NodeHostName, Address: "worker-1"}
	ext4 := v1.NodeAddress{Type: v1.NodeExternalIP, Address: "127.0.0.5"}
	ext6 := v1.NodeAddress{Type: v1.NodeExternalIP, Address: "2001:db8:1234::1"}
	internal := v1.NodeAddress{Type: v1.NodeInternalIP, Address: "127.10.0.2"}
	cases := []struct {
		name      string
		server    *hcloud.Server
		networkID int64
		family    string
		want      []v1.NodeAddress
	}{
		{name: "ipv4 with the configured network", server: full, networkID: 7, family: "ipv4", want: []v1.NodeAddress{hostname, ext4, internal}},
		{name: "dualstack", server: full, networkID: 7, family: "dualstack", want: []v1.NodeAddress{hostname, ext4, ext6, internal}},
		{name: "ipv6 only", server: full, networkID: 7, family: "ipv6", want: []v1.NodeAddress{hostname, ext6, internal}},
		{name: "no network configured: no InternalIP", server: full, family: "ipv4", want: []v1.NodeAddress{hostname, ext4}},
		{name: "not attached to the configured network", server: full, networkID: 8, family: "ipv4", want: []v1.NodeAddress{hostname, ext4}},
		{name: "no public address", server: &hcloud.Server{Name: "worker-1"}, family: "dualstack", want: []v1.NodeAddress{hostname}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := nodeAddresses(tc.server, tc.networkID, tc.family); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
