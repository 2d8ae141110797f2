package phoenixnap

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/phoenixnap/go-sdk-bmc/bmcapi"
	"github.com/phoenixnap/go-sdk-bmc/networkapi"
)

// A private network through the networks API: the same simcloud network through /v1, its members, list by location, rename, delete.
func TestPrivateNetworks(t *testing.T) {
	c := clients(t)
	n := createNetwork(t, c)
	if n.Type != "PRIVATE" || n.Location != "sim-1" || n.VlanId == 0 || n.CreatedOn.IsZero() || len(n.Memberships) != 0 {
		t.Fatalf("created %+v", n)
	}
	var v1 struct {
		Network struct {
			Name    string
			IPRange string `json:"ip_range"`
		}
	}
	sim.Do(t, "GET", "/v1/networks/"+simID("net", n.Id), nil, &v1)
	if v1.Network.Name != n.Name || v1.Network.IPRange != n.Cidr {
		t.Fatalf("/v1 shows %+v for %+v", v1.Network, n)
	}
	s := createServer(t, c, n.Id)
	got, _, err := c.Network.PrivateNetworksApi.PrivateNetworksNetworkIdGet(ctx(t), n.Id).Execute()
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Memberships) != 1 || got.Memberships[0].ResourceId != s.Id || got.Memberships[0].ResourceType != "server" || !slices.Equal(got.Memberships[0].Ips, s.PrivateIpAddresses) {
		t.Fatalf("memberships %+v of server %s %v", got.Memberships, s.Id, s.PrivateIpAddresses)
	}
	ids := func(location string) []string {
		list, _, err := c.Network.PrivateNetworksApi.PrivateNetworksGet(ctx(t)).Location(location).Execute()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, x := range list {
			out = append(out, x.Id)
		}
		return out
	}
	if !slices.Contains(ids("sim-1"), n.Id) || slices.Contains(ids("sim-2"), n.Id) {
		t.Errorf("location filter: sim-1 %v, sim-2 %v", ids("sim-1"), ids("sim-2"))
	}
	renamed, _, err := c.Network.PrivateNetworksApi.PrivateNetworksNetworkIdPut(ctx(t), n.Id).
		PrivateNetworkModify(networkapi.PrivateNetworkModify{Name: n.Name + "-b", LocationDefault: false}).Execute()
	if err != nil || renamed.Name != n.Name+"-b" {
		t.Fatalf("rename: %v %+v", err, renamed)
	}
	res, err := c.Network.PrivateNetworksApi.PrivateNetworksNetworkIdDelete(ctx(t), n.Id).Execute()
	e := networkError(t, err)
	var body networkapi.Error
	if status(t, res) != http.StatusConflict || json.Unmarshal(e.Body(), &body) != nil || body.Message == "" {
		t.Fatalf("delete with a member: %d %s", res.StatusCode, e.Body())
	}
}

// A server joins and leaves a second private network through the BMC API.
func TestServerPrivateNetworks(t *testing.T) {
	c := clients(t)
	first, second := createNetwork(t, c), createNetwork(t, c)
	s := createServer(t, c, first.Id)
	joined, res, err := c.BMC.ServersApi.ServersServerIdPrivateNetworksPost(ctx(t), s.Id).ServerPrivateNetwork(bmcapi.ServerPrivateNetwork{Id: second.Id}).Execute()
	if err != nil || status(t, res) != http.StatusAccepted || joined.Id != second.Id || len(joined.Ips) != 1 {
		t.Fatalf("join: %v %+v", err, joined)
	}
	s = waitIdle(t, c, s.Id, func(s bmcapi.Server) bool { return len(s.PrivateIpAddresses) == 2 })
	nets := s.NetworkConfiguration.PrivateNetworkConfiguration.PrivateNetworks
	if len(nets) != 2 || nets[1].Id != second.Id || nets[1].Ips[0] != joined.Ips[0] {
		t.Fatalf("private networks %+v", nets)
	}
	text, _, err := c.BMC.ServersApi.DeletePrivateNetwork(ctx(t), s.Id, second.Id).Execute()
	if err != nil || text == "" {
		t.Fatalf("leave: %v %q", err, text)
	}
	waitIdle(t, c, s.Id, func(s bmcapi.Server) bool { return len(s.PrivateIpAddresses) == 1 })
}
