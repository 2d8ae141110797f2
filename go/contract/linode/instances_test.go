package linode

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/linode/linodego/v2"

	"ccm-sandbox/go/internal/providerkit/poll"
)

func createInstance(t *testing.T, label string, tags ...string) *linodego.Instance {
	t.Helper()
	c := client(t)
	regions, err := c.ListRegions(ctx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	types, err := c.ListTypes(ctx(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	in, err := c.CreateInstance(ctx(t), linodego.InstanceCreateOptions{Region: regions[0].ID, Type: types[0].ID, Label: label, Tags: tags})
	if err != nil {
		t.Fatalf("CreateInstance(%s): %v", label, err)
	}
	t.Cleanup(func() { _ = c.DeleteInstance(ctx(t), in.ID) })
	return in
}

func TestInstanceGetShowsLinodeFieldsAndIPs(t *testing.T) {
	c := client(t)
	in := createInstance(t, "get-me", "cluster=one", "web")
	got, err := c.GetInstance(ctx(t), in.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Label != "get-me" || got.Region == "" || got.Type == "" || got.Created == nil || got.Specs == nil || got.Specs.VCPUs == 0 {
		t.Errorf("GetInstance = %+v", got)
	}
	if !slices.Contains(got.Tags, "cluster=one") || !slices.Contains(got.Tags, "web") {
		t.Errorf("tags %v, want cluster=one and web", got.Tags)
	}
	ips, err := c.GetInstanceIPAddresses(ctx(t), in.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ips.IPv4.Public) != 1 || !ips.IPv4.Public[0].Public || ips.IPv4.Public[0].LinodeID != in.ID || len(got.IPv4) == 0 || !got.IPv4[0].Equal(parseIP(ips.IPv4.Public[0].Address)) {
		t.Errorf("ips %+v, instance ipv4 %v", ips.IPv4, got.IPv4)
	}
}

func TestInstanceListFiltersByLabelAndTagAsTheCCMDoes(t *testing.T) {
	c := client(t)
	a := createInstance(t, "filter-a", "team-x")
	createInstance(t, "filter-b", "team-y")
	byLabel, err := c.ListInstances(ctx(t), &linodego.ListOptions{Filter: `{"label": "filter-a"}`})
	if err != nil || len(byLabel) != 1 || byLabel[0].ID != a.ID {
		t.Fatalf("label filter = %v, %v", byLabel, err)
	}
	f := linodego.Filter{}
	f.AddField(linodego.Contains, "tags", "team-x")
	js, err := f.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	byTag, err := c.ListInstances(ctx(t), &linodego.ListOptions{PageSize: 500, Filter: string(js)})
	if err != nil || len(byTag) != 1 || byTag[0].ID != a.ID {
		t.Fatalf("tag filter %s = %v, %v", js, byTag, err)
	}
	or := `{"+or": [{"label": "filter-a"}, {"label": "filter-b"}], "+order_by": "label", "+order": "desc"}`
	both, err := c.ListInstances(ctx(t), &linodego.ListOptions{Filter: or})
	if err != nil || len(both) != 2 || both[0].Label != "filter-b" {
		t.Fatalf("+or filter = %v, %v", both, err)
	}
	_, err = c.ListInstances(ctx(t), &linodego.ListOptions{Filter: `not json`})
	if e := apiError(t, err); e.Code != http.StatusBadRequest || !strings.Contains(e.Message, "X-Filter") {
		t.Fatalf("bad filter: %v, want 400 naming X-Filter", err)
	}
}

func TestInstanceListPagesAcrossPages(t *testing.T) {
	c := client(t)
	for i := range 27 {
		createInstance(t, fmt.Sprintf("page-%02d", i), "paging")
	}
	filter := `{"tags": "paging"}`
	all, err := c.ListInstances(ctx(t), &linodego.ListOptions{PageSize: 25, Filter: filter})
	if err != nil || len(all) != 27 {
		t.Fatalf("all pages: %d instances, %v; want 27", len(all), err)
	}
	opts := &linodego.ListOptions{PageOptions: &linodego.PageOptions{Page: 2}, PageSize: 25, Filter: filter}
	second, err := c.ListInstances(ctx(t), opts)
	if err != nil || len(second) != 2 || opts.Pages != 2 || opts.Results != 27 {
		t.Fatalf("page 2: %d instances, pages %d, results %d, %v", len(second), opts.Pages, opts.Results, err)
	}
	_, err = c.ListInstances(ctx(t), &linodego.ListOptions{PageSize: 1000})
	if e := apiError(t, err); e.Code != http.StatusBadRequest || !strings.Contains(e.Message, "page_size") {
		t.Fatalf("page_size 1000: %v, want 400 naming page_size", err)
	}
}

func TestInstancePowerCallsMoveItsStatus(t *testing.T) {
	c := client(t)
	in := createInstance(t, "power")
	waitStatus(t, in.ID, linodego.InstanceRunning)
	if err := c.ShutdownInstance(ctx(t), in.ID); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, in.ID, linodego.InstanceOffline)
	if err := c.BootInstance(ctx(t), in.ID, linodego.InstanceBootOptions{}); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, in.ID, linodego.InstanceRunning)
	if err := c.RebootInstance(ctx(t), in.ID, linodego.InstanceRebootOptions{}); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, in.ID, linodego.InstanceRunning)
}

func TestInstanceUpdateAndDelete(t *testing.T) {
	c := client(t)
	in := createInstance(t, "to-update")
	up, err := c.UpdateInstance(ctx(t), in.ID, linodego.InstanceUpdateOptions{Label: "updated", Tags: []string{"k=v"}})
	if err != nil || up.Label != "updated" || !slices.Equal(up.Tags, []string{"k=v"}) {
		t.Fatalf("UpdateInstance = %+v, %v", up, err)
	}
	waitStatus(t, in.ID, linodego.InstanceRunning)
	if err := c.DeleteInstance(ctx(t), in.ID); err != nil {
		t.Fatal(err)
	}
	poll.Eventually(t, fmt.Sprintf("instance %d gone after delete", in.ID), func() error {
		switch _, err := c.GetInstance(ctx(t), in.ID); {
		case linodego.IsNotFound(err):
			return nil
		case err != nil:
			return err
		}
		return errors.New("still there")
	})
}

func TestInstanceErrorsUseLinodesEnvelope(t *testing.T) {
	c := client(t)
	_, err := c.GetInstance(ctx(t), 999999)
	if e := apiError(t, err); e.Code != http.StatusNotFound || e.Message != "Not found" {
		t.Fatalf("missing instance: %v, want [404] Not found", err)
	}
	_, err = c.CreateInstance(ctx(t), linodego.InstanceCreateOptions{Region: "nowhere-1", Type: "x"})
	if e := apiError(t, err); e.Code != http.StatusBadRequest || !strings.HasPrefix(e.Message, "[region]") {
		t.Fatalf("bad region: %v, want 400 naming region", err)
	}
}
