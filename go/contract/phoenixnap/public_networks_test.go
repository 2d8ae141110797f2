package phoenixnap

import (
	"net/http"
	"testing"

	"github.com/phoenixnap/go-sdk-bmc/bmcapi"
	"github.com/phoenixnap/go-sdk-bmc/ipapi"
	"github.com/phoenixnap/go-sdk-bmc/networkapi"

	"ccm-sandbox/go/internal/simcloudtest"
)

// A server joins a public network with an address of the network's IP block: the server and the network both
// read the membership back in go-sdk-bmc's models, and leaving clears both.
func TestServerPublicNetworks(t *testing.T) {
	c := clients(t)
	block, _, err := c.IP.IPBlocksApi.IpBlocksPost(ctx(t)).IpBlockCreate(ipapi.IpBlockCreate{Location: "sim-1", CidrBlockSize: "/29"}).Execute()
	if err != nil {
		t.Fatalf("create block: %v", err)
	}
	create := networkapi.PublicNetworkCreate{Name: simcloudtest.UniqueName("pub"), Location: "sim-1", IpBlocks: []networkapi.PublicNetworkIpBlock{{Id: block.Id}}}
	pub, _, err := c.Network.PublicNetworksApi.PublicNetworksPost(ctx(t)).PublicNetworkCreate(create).Execute()
	if err != nil {
		t.Fatalf("create public network: %v", err)
	}
	var v1 struct {
		IPBlock struct {
			UsableAddresses []string `json:"usable_addresses"`
		} `json:"ip_block"`
	}
	sim.Do(t, "GET", "/v1/ip_blocks/"+simID("ipb", block.Id), nil, &v1)
	ip := v1.IPBlock.UsableAddresses[0]
	s := createServer(t, c, createNetwork(t, c).Id)

	joined, res, err := c.BMC.ServersApi.ServersServerIdPublicNetworksPost(ctx(t), s.Id).ServerPublicNetwork(bmcapi.ServerPublicNetwork{Id: pub.Id, Ips: []string{ip}}).Execute()
	if err != nil || status(t, res) != http.StatusAccepted || joined.Id != pub.Id || len(joined.Ips) != 1 || joined.Ips[0] != ip {
		t.Fatalf("join: %v %+v", err, joined)
	}
	s = waitIdle(t, c, s.Id, func(s bmcapi.Server) bool {
		return len(s.NetworkConfiguration.GetPublicNetworkConfiguration().PublicNetworks) == 1
	})
	if got := s.NetworkConfiguration.GetPublicNetworkConfiguration().PublicNetworks[0]; got.Id != pub.Id || len(got.Ips) != 1 || got.Ips[0] != ip {
		t.Fatalf("server's public networks: %+v", got)
	}
	read, _, err := c.Network.PublicNetworksApi.PublicNetworksNetworkIdGet(ctx(t), pub.Id).Execute()
	if err != nil || len(read.Memberships) != 1 || read.Memberships[0].ResourceId != s.Id || read.Memberships[0].ResourceType != "server" || read.Memberships[0].Ips[0] != ip {
		t.Fatalf("memberships: %v %+v", err, read)
	}

	text, _, err := c.BMC.ServersApi.ServersServerIdPublicNetworksDelete(ctx(t), s.Id, pub.Id).Execute()
	if err != nil || text == "" {
		t.Fatalf("leave: %v %q", err, text)
	}
	waitIdle(t, c, s.Id, func(s bmcapi.Server) bool {
		return len(s.NetworkConfiguration.GetPublicNetworkConfiguration().PublicNetworks) == 0
	})
	if _, _, err := c.Network.PublicNetworksApi.PublicNetworksNetworkIdIpBlocksIpBlockIdDelete(ctx(t), pub.Id, block.Id).Execute(); err != nil {
		t.Fatalf("remove block: %v", err)
	}
	if _, err := c.Network.PublicNetworksApi.PublicNetworksNetworkIdDelete(ctx(t), pub.Id).Execute(); err != nil {
		t.Fatalf("delete public network: %v", err)
	}
}
