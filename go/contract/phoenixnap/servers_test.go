package phoenixnap

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/phoenixnap/go-sdk-bmc/bmcapi"
)

func tagValue(tags []bmcapi.TagAssignment, name string) (string, bool) {
	for _, t := range tags {
		if t.Name == name {
			return t.GetValue(), true
		}
	}
	return "", false
}

func serverIDs(t *testing.T, c Clients, tags ...string) []string {
	t.Helper()
	list, _, err := c.BMC.ServersApi.ServersGet(ctx(t)).Tag(tags).Execute()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range list {
		ids = append(ids, s.Id)
	}
	return ids
}

// A server made through the BMC API is the same simcloud server through /v1, with the fields the CCM reads.
func TestServerCreateGetListByTag(t *testing.T) {
	c := clients(t)
	n := createNetwork(t, c)
	tag := strings.ReplaceAll(n.Name, ".", "-")
	s := createServer(t, c, n.Id, bmcapi.TagAssignmentRequest{Name: "cluster", Value: &tag}, bmcapi.TagAssignmentRequest{Name: "k8s"})
	if s.Os != "ubuntu-24.04" || s.Type != "sc-small" || s.Location != "sim-1" || s.PricingModel != "HOURLY" || s.CpuCount < 1 || s.Ram == "" {
		t.Fatalf("server %+v", s)
	}
	if len(s.PrivateIpAddresses) != 1 || len(s.PublicIpAddresses) != 1 {
		t.Fatalf("addresses: private %v public %v (phoenixNAP's CCM needs one of each)", s.PrivateIpAddresses, s.PublicIpAddresses)
	}
	if v, ok := tagValue(s.Tags, "cluster"); !ok || v != tag {
		t.Errorf("tags %+v", s.Tags)
	}
	var v1 struct {
		Server struct {
			Name        string
			PrivateIPv4 string `json:"private_ipv4"`
			Labels      map[string]string
		}
	}
	sim.Do(t, "GET", "/v1/servers/"+simID("srv", s.Id), nil, &v1)
	if v1.Server.Name != s.Hostname || v1.Server.PrivateIPv4 != s.PrivateIpAddresses[0] || v1.Server.Labels["cluster"] != tag || v1.Server.Labels["k8s"] != "" {
		t.Fatalf("/v1 shows %+v", v1.Server)
	}
	if ids := serverIDs(t, c, "cluster."+tag, "k8s"); !slices.Equal(ids, []string{s.Id}) {
		t.Errorf("tag filter: %v", ids)
	}
	if ids := serverIDs(t, c, "cluster.other"); slices.Contains(ids, s.Id) {
		t.Errorf("tag filter cluster.other: %v", ids)
	}
	if !slices.Contains(serverIDs(t, c), s.Id) {
		t.Error("unfiltered list misses the server")
	}
}

// Hostname and tags change through PATCH and PUT .../tags.
func TestServerPatchAndTags(t *testing.T) {
	c := clients(t)
	s := createServer(t, c, "")
	name := s.Hostname + "-b"
	got, _, err := c.BMC.ServersApi.ServersServerIdPatch(ctx(t), s.Id).ServerPatch(bmcapi.ServerPatch{Hostname: &name}).Execute()
	if err != nil || got.Hostname != name {
		t.Fatalf("patch: %v %+v", err, got)
	}
	v := "b"
	got, _, err = c.BMC.ServersApi.ServersServerIdTagsPut(ctx(t), s.Id).TagAssignmentRequest([]bmcapi.TagAssignmentRequest{{Name: "team", Value: &v}}).Execute()
	if err != nil || len(got.Tags) != 1 || got.Tags[0].Name != "team" || got.Tags[0].GetValue() != "b" || got.Tags[0].Id == "" {
		t.Fatalf("tags: %v %+v", err, got)
	}
}

// power-off, power-on, reboot and shutdown answer ActionResult and move the server's status.
func TestServerPowerActions(t *testing.T) {
	c := clients(t)
	s := createServer(t, c, "")
	api := c.BMC.ServersApi
	r, _, err := api.ServersServerIdActionsPowerOffPost(ctx(t), s.Id).Execute()
	if err != nil || r.Result != "Server powered off" {
		t.Fatalf("power-off: %v %+v", err, r)
	}
	waitIdle(t, c, s.Id, func(s bmcapi.Server) bool { return s.Status == "powered-off" })
	if r, _, err = api.ServersServerIdActionsPowerOnPost(ctx(t), s.Id).Execute(); err != nil || r.Result != "Server powered on" {
		t.Fatalf("power-on: %v %+v", err, r)
	}
	waitIdle(t, c, s.Id, func(s bmcapi.Server) bool { return s.Status == "powered-on" })
	if r, _, err = api.ServersServerIdActionsRebootPost(ctx(t), s.Id).Execute(); err != nil || r.Result != "Server rebooted" {
		t.Fatalf("reboot: %v %+v", err, r)
	}
	waitIdle(t, c, s.Id, func(s bmcapi.Server) bool { return s.Status == "powered-on" })
	if r, _, err = api.ServersServerIdActionsShutdownPost(ctx(t), s.Id).Execute(); err != nil || r.Result != "Server shutdown" {
		t.Fatalf("shutdown: %v %+v", err, r)
	}
	waitIdle(t, c, s.Id, func(s bmcapi.Server) bool { return s.Status == "powered-off" })
	// Powering off a server that is off: simcloud's conflict, phoenixNAP's status and body.
	_, res, err := api.ServersServerIdActionsPowerOffPost(ctx(t), s.Id).Execute()
	if e := bmcError(t, err); status(t, res) != http.StatusConflict || !strings.Contains(string(e.Body()), "message") {
		t.Fatalf("power-off when off: %d %s", res.StatusCode, e.Body())
	}
}

// DELETE (deprecated) and deprovision both remove the server.
func TestServerDeleteAndDeprovision(t *testing.T) {
	c := clients(t)
	a, b := createServer(t, c, ""), createServer(t, c, "")
	del, _, err := c.BMC.ServersApi.ServersServerIdDelete(ctx(t), a.Id).Execute()
	if err != nil || del.ServerId != a.Id || del.Result == "" {
		t.Fatalf("delete: %v %+v", err, del)
	}
	// No RelinquishIpBlock: bmcapi then sends the JSON body `null`.
	text, _, err := c.BMC.ServersApi.ServersServerIdActionsDeprovisionPost(ctx(t), b.Id).Execute()
	if err != nil || !strings.Contains(text, "deprovisioned") {
		t.Fatalf("deprovision: %v %q", err, text)
	}
	deprovision(t, c, a.Id)
	deprovision(t, c, b.Id)
}

// An IP block assigned to a server through the BMC API: the server's public addresses and configuration, the IP
// API's assignment, a delete refused while assigned, then removed from the server and deleted.
func TestServerIPBlocks(t *testing.T) {
	c := clients(t)
	s := createServer(t, c, "")
	b := createBlock(t, c, "/29")
	got, res, err := c.BMC.ServersApi.ServersServerIdIpBlocksPost(ctx(t), s.Id).ServerIpBlock(bmcapi.ServerIpBlock{Id: b.Id}).Execute()
	if err != nil || status(t, res) != http.StatusAccepted || got.Id != b.Id {
		t.Fatalf("assign: %v %+v", err, got)
	}
	s = waitIdle(t, c, s.Id, func(s bmcapi.Server) bool { return len(s.PublicIpAddresses) == 6 })
	if ipb := s.NetworkConfiguration.IpBlocksConfiguration.IpBlocks; len(ipb) != 1 || ipb[0].Id != b.Id {
		t.Fatalf("ipBlocksConfiguration %+v", s.NetworkConfiguration.IpBlocksConfiguration)
	}
	seen, _, err := c.IP.IPBlocksApi.IpBlocksIpBlockIdGet(ctx(t), b.Id).Execute()
	if err != nil || seen.Status != "assigned" || seen.GetAssignedResourceId() != s.Id || seen.GetAssignedResourceType() != "server" {
		t.Fatalf("IP API: %v %+v", err, seen)
	}
	_, res, err = c.IP.IPBlocksApi.IpBlocksIpBlockIdDelete(ctx(t), b.Id).Execute()
	if ipError(t, err); status(t, res) != http.StatusConflict {
		t.Fatalf("delete while assigned: %d", res.StatusCode)
	}
	if _, _, err := c.BMC.ServersApi.ServersServerIdIpBlocksIpBlockIdDelete(ctx(t), s.Id, b.Id).RelinquishIpBlock(bmcapi.RelinquishIpBlock{DeleteIpBlocks: ptr(false)}).Execute(); err != nil {
		t.Fatalf("remove: %v", err)
	}
	if del, _, err := c.IP.IPBlocksApi.IpBlocksIpBlockIdDelete(ctx(t), b.Id).Execute(); err != nil || del.IpBlockId != b.Id {
		t.Fatalf("delete: %v %+v", err, del)
	}
}
