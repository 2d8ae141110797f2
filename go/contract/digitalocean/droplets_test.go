package digitalocean

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/digitalocean/godo"

	"ccm-sandbox/go/internal/providerkit/poll"
	"ccm-sandbox/go/internal/simcloudtest"
)

// createDroplet makes a droplet through godo and deletes it when the test ends.
func createDroplet(t *testing.T, prefix string, tags ...string) *godo.Droplet {
	t.Helper()
	c := client(t)
	d, _, err := c.Droplets.Create(ctx(t), &godo.DropletCreateRequest{
		Name: simcloudtest.UniqueName(prefix), Region: "sim-1", Size: "sc-small", Image: godo.DropletCreateImage{Slug: "ubuntu-24.04"}, Tags: tags,
	})
	if err != nil {
		t.Fatalf("create droplet: %v", err)
	}
	t.Cleanup(func() { _, _ = c.Droplets.Delete(ctx(t), d.ID) })
	return d
}

func waitDroplet(t *testing.T, id int, status string) *godo.Droplet {
	t.Helper()
	var d *godo.Droplet
	poll.Eventually(t, fmt.Sprintf("droplet %d %s", id, status), func() error {
		var err error
		if d, _, err = client(t).Droplets.Get(ctx(t), id); err != nil {
			return err
		}
		if d.Status != status {
			return fmt.Errorf("status %s", d.Status)
		}
		return nil
	})
	return d
}

func TestADropletIsNewThenActiveWithItsSizeRegionAndPublicAddress(t *testing.T) {
	d := createDroplet(t, "do-get", "k8s", "cluster:c1")
	if d.ID <= 0 || d.SizeSlug != "sc-small" || d.Region == nil || d.Region.Slug != "sim-1" {
		t.Fatalf("created droplet: %+v", d)
	}
	got := waitDroplet(t, d.ID, "active")
	ip, err := got.PublicIPv4()
	if err != nil || ip == "" {
		t.Fatalf("PublicIPv4 = %q, %v", ip, err)
	}
	if got.Memory != 2048 || got.Vcpus != 1 || got.Size == nil || got.Size.Slug != "sc-small" {
		t.Errorf("size fields: memory %d vcpus %d size %+v", got.Memory, got.Vcpus, got.Size)
	}
	if len(got.Tags) != 2 || got.Tags[0] != "k8s" || got.Tags[1] != "cluster:c1" {
		t.Errorf("tags = %v", got.Tags)
	}
	if got.Created == "" || got.Image == nil || got.Image.Slug != "ubuntu-24.04" {
		t.Errorf("created %q image %+v", got.Created, got.Image)
	}
}

func TestListByTagReturnsOnlyTheTaggedDroplets(t *testing.T) {
	tag := "tagged:" + simcloudtest.UniqueName("t")
	a := createDroplet(t, "do-tag-a", tag)
	createDroplet(t, "do-tag-b")
	ds, _, err := client(t).Droplets.ListByTag(ctx(t), tag, &godo.ListOptions{PerPage: 200})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || ds[0].ID != a.ID {
		t.Fatalf("ListByTag(%s) = %d droplets, want just %d", tag, len(ds), a.ID)
	}
	byName, _, err := client(t).Droplets.ListByName(ctx(t), a.Name, nil)
	if err != nil || len(byName) != 1 || byName[0].ID != a.ID {
		t.Fatalf("ListByName = %v, %v", byName, err)
	}
}

// The DigitalOcean CCM lists every droplet page by page until Links says it is the last page.
func TestListPagesWithLinksAndMetaUntilTheLastPage(t *testing.T) {
	tag := "paged:" + simcloudtest.UniqueName("p")
	want := map[int]bool{}
	for i := range 5 {
		want[createDroplet(t, fmt.Sprintf("do-page-%d", i), tag).ID] = true
	}
	seen := map[int]bool{}
	opt := &godo.ListOptions{PerPage: 2}
	for pages := 1; ; pages++ {
		ds, resp, err := client(t).Droplets.ListByTag(ctx(t), tag, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			seen[d.ID] = true
		}
		if resp.Meta == nil || resp.Meta.Total != 5 {
			t.Fatalf("meta = %+v, want total 5", resp.Meta)
		}
		current, err := resp.Links.CurrentPage()
		if err != nil || current != pages {
			t.Fatalf("CurrentPage = %d, %v; want %d", current, err, pages)
		}
		if resp.Links.IsLastPage() {
			if pages != 3 {
				t.Fatalf("last page after %d pages, want 3", pages)
			}
			break
		}
		opt.Page = current + 1
	}
	if len(seen) != len(want) {
		t.Fatalf("saw %d droplets across pages, want %d", len(seen), len(want))
	}
}

func TestPowerActionsTurnADropletOffAndOnAndAreReadable(t *testing.T) {
	c := client(t)
	d := createDroplet(t, "do-power")
	waitDroplet(t, d.ID, "active")
	a, _, err := c.DropletActions.PowerOff(ctx(t), d.ID)
	if err != nil || a.Type != "power_off" || a.ResourceID != d.ID || a.ResourceType != "droplet" {
		t.Fatalf("PowerOff = %+v, %v", a, err)
	}
	waitDroplet(t, d.ID, "off")
	poll.Eventually(t, "the action completes", func() error {
		got, _, err := c.DropletActions.Get(ctx(t), d.ID, a.ID)
		if err != nil {
			return err
		}
		if got.Status != godo.ActionCompleted || got.CompletedAt == nil {
			return fmt.Errorf("status %s", got.Status)
		}
		return nil
	})
	if got, _, err := c.Actions.Get(ctx(t), a.ID); err != nil || got.ID != a.ID || got.RegionSlug != "sim-1" {
		t.Fatalf("Actions.Get = %+v, %v", got, err)
	}
	if _, _, err := c.DropletActions.PowerOn(ctx(t), d.ID); err != nil {
		t.Fatal(err)
	}
	waitDroplet(t, d.ID, "active")
	if _, _, err := c.DropletActions.Shutdown(ctx(t), d.ID); err != nil {
		t.Fatal(err)
	}
	waitDroplet(t, d.ID, "off")
}

func TestErrorsComeAsGodoErrorResponsesWithDigitalOceansIdsAndStatuses(t *testing.T) {
	c := client(t)
	_, _, err := c.Droplets.Get(ctx(t), 999999)
	e := apiError(t, err)
	if e.Response.StatusCode != http.StatusNotFound || e.Message == "" || e.RequestID == "" {
		t.Fatalf("missing droplet: %d %q request %q", e.Response.StatusCode, e.Message, e.RequestID)
	}
	_, _, err = c.Droplets.Create(ctx(t), &godo.DropletCreateRequest{Name: "bad-size", Region: "sim-1", Size: "nope", Image: godo.DropletCreateImage{Slug: "ubuntu-24.04"}})
	if e := apiError(t, err); e.Response.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(e.Message, "size") {
		t.Fatalf("unknown size: %d %q", e.Response.StatusCode, e.Message)
	}
	bad, err := NewClient(sim, "not-a-token")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = bad.Droplets.List(ctx(t), nil)
	if e := apiError(t, err); e.Response.StatusCode != http.StatusUnauthorized {
		t.Fatalf("bad token: %d %q", e.Response.StatusCode, e.Message)
	}
}

func TestRegionsAndSizesListTheCatalogue(t *testing.T) {
	c := client(t)
	// The DigitalOcean CCM accepts its REGION setting only when a region's name equals it.
	regions, _, err := c.Regions.List(ctx(t), &godo.ListOptions{Page: 1, PerPage: 50})
	if err != nil || len(regions) < 2 || regions[0].Slug != "sim-1" || regions[0].Name != "sim-1" || !regions[0].Available {
		t.Fatalf("regions = %+v, %v", regions, err)
	}
	sizes, _, err := c.Sizes.List(ctx(t), nil)
	if err != nil || len(sizes) != 3 || sizes[0].Slug != "sc-small" || sizes[0].Memory != 2048 {
		t.Fatalf("sizes = %+v, %v", sizes, err)
	}
	if _, _, err := c.Account.Get(ctx(t)); err != nil {
		t.Fatalf("account: %v", err)
	}
}
