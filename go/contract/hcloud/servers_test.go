package hcloud

import (
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

func TestServerCreateGetAndFields(t *testing.T) {
	client := NewClient(sim)
	ctx := testContext(t)
	network := newNetwork(t, client, "10.40.0.0/24")
	server := newServer(t, client, map[string]string{"role": "worker"}, network)

	if server.Status != hcloud.ServerStatusRunning {
		t.Errorf("status = %s, want running", server.Status)
	}
	if server.ServerType == nil || server.ServerType.Name != "sc-small" || server.ServerType.Cores != 1 {
		t.Errorf("server type = %+v", server.ServerType)
	}
	if server.Location == nil || server.Location.Name != "sim-1" || server.Location.NetworkZone != "sim-1" {
		t.Errorf("location = %+v", server.Location)
	}
	if server.PublicNet.IPv4.IP == nil || !server.PublicNet.IPv4.IP.IsLoopback() {
		t.Errorf("public IPv4 = %v, want a loopback address", server.PublicNet.IPv4.IP)
	}
	if len(server.PrivateNet) != 1 || server.PrivateNet[0].Network.ID != network.ID || !cidr(t, "10.40.0.0/24").Contains(server.PrivateNet[0].IP) {
		t.Errorf("private net = %+v, want one address in network %d", server.PrivateNet, network.ID)
	}
	if server.Labels["role"] != "worker" {
		t.Errorf("labels = %v", server.Labels)
	}
	byName := ok(client.Server.GetByName(ctx, server.Name)).Get(t)
	if byName == nil || byName.ID != server.ID {
		t.Errorf("GetByName(%s) = %+v, want id %d", server.Name, byName, server.ID)
	}
	missing, _, err := client.Server.GetByID(ctx, 987654321)
	if err != nil || missing != nil {
		t.Errorf("GetByID(unknown) = %v, %v; want nil, nil (hcloud-go maps not_found to nil)", missing, err)
	}
}

func TestServerListFiltersByNameAndLabelSelector(t *testing.T) {
	client := NewClient(sim)
	ctx := testContext(t)
	tag := unique("pool")
	a := newServer(t, client, map[string]string{"pool": tag, "tier": "a"})
	b := newServer(t, client, map[string]string{"pool": tag, "tier": "b"})

	ids := func(servers []*hcloud.Server) map[int64]bool {
		out := map[int64]bool{}
		for _, s := range servers {
			out[s.ID] = true
		}
		return out
	}
	cases := []struct {
		name string
		opts hcloud.ServerListOpts
		want []int64
	}{
		{"label equality", hcloud.ServerListOpts{ListOpts: hcloud.ListOpts{LabelSelector: "pool=" + tag}}, []int64{a.ID, b.ID}},
		{"label set", hcloud.ServerListOpts{ListOpts: hcloud.ListOpts{LabelSelector: "pool=" + tag + ",tier in (b)"}}, []int64{b.ID}},
		{"label inequality", hcloud.ServerListOpts{ListOpts: hcloud.ListOpts{LabelSelector: "pool=" + tag + ",tier!=b"}}, []int64{a.ID}},
		{"name", hcloud.ServerListOpts{Name: a.Name}, []int64{a.ID}},
		{"status", hcloud.ServerListOpts{ListOpts: hcloud.ListOpts{LabelSelector: "pool=" + tag}, Status: []hcloud.ServerStatus{hcloud.ServerStatusOff}}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := client.Server.AllWithOpts(ctx, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d servers, want %d", len(got), len(tc.want))
			}
			for _, id := range tc.want {
				if !ids(got)[id] {
					t.Errorf("server %d missing", id)
				}
			}
		})
	}
}

func TestServerPowerActions(t *testing.T) {
	client := NewClient(sim)
	ctx := testContext(t)
	server := newServer(t, client, nil)
	steps := []struct {
		name string
		do   func() (*hcloud.Action, *hcloud.Response, error)
		want hcloud.ServerStatus
	}{
		{"poweroff", func() (*hcloud.Action, *hcloud.Response, error) { return client.Server.Poweroff(ctx, server) }, hcloud.ServerStatusOff},
		{"poweron", func() (*hcloud.Action, *hcloud.Response, error) { return client.Server.Poweron(ctx, server) }, hcloud.ServerStatusRunning},
		{"reboot", func() (*hcloud.Action, *hcloud.Response, error) { return client.Server.Reboot(ctx, server) }, hcloud.ServerStatusRunning},
		{"shutdown", func() (*hcloud.Action, *hcloud.Response, error) { return client.Server.Shutdown(ctx, server) }, hcloud.ServerStatusOff},
	}
	for _, step := range steps {
		action := ok(step.do()).Get(t)
		wait(t, client, action)
		got := ok(client.Server.GetByID(ctx, server.ID)).Get(t)
		if got.Status != step.want {
			t.Errorf("after %s: status %s, want %s", step.name, got.Status, step.want)
		}
	}
}

func TestServerUpdateAndDelete(t *testing.T) {
	client := NewClient(sim)
	ctx := testContext(t)
	server := newServer(t, client, nil)
	renamed := unique("renamed")
	updated := ok(client.Server.Update(ctx, server, hcloud.ServerUpdateOpts{Name: renamed, Labels: map[string]string{"k": "v"}})).Get(t)
	if updated.Name != renamed || updated.Labels["k"] != "v" {
		t.Errorf("updated = %s %v", updated.Name, updated.Labels)
	}
	result := ok(client.Server.DeleteWithResult(ctx, server)).Get(t)
	wait(t, client, result.Action)
	if gone := ok(client.Server.GetByID(ctx, server.ID)).Get(t); gone != nil {
		t.Errorf("server %d still there after delete: %s", server.ID, gone.Status)
	}
}
