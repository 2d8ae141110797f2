package hcloud

import (
	"net"
	"reflect"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	cloudprovider "k8s.io/cloud-provider"
)

func TestToRoutes(t *testing.T) {
	cidr := func(s string) *net.IPNet { _, n, _ := net.ParseCIDR(s); return n }
	network := &hcloud.Network{ID: 7, Routes: []hcloud.NetworkRoute{
		{Destination: cidr("10.244.1.0/24"), Gateway: net.ParseIP("127.10.0.2")},
		{Destination: cidr("10.244.2.0/24"), Gateway: net.ParseIP("127.10.0.99")},
	}}
	servers := []*hcloud.Server{
		{Name: "worker-1", PrivateNet: []hcloud.ServerPrivateNet{{Network: &hcloud.Network{ID: 7}, IP: net.ParseIP("127.10.0.2")}}},
		{Name: "elsewhere", PrivateNet: []hcloud.ServerPrivateNet{{Network: &hcloud.Network{ID: 8}, IP: net.ParseIP("127.10.0.99")}}},
	}
	want := []*cloudprovider.Route{
		{Name: "127.10.0.2-10.244.1.0/24", TargetNode: "worker-1", DestinationCIDR: "10.244.1.0/24"},
		{Name: "127.10.0.99-10.244.2.0/24", DestinationCIDR: "10.244.2.0/24", Blackhole: true},
	}
	if got := toRoutes(network, servers); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}
