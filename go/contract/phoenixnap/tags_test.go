package phoenixnap

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/phoenixnap/go-sdk-bmc/bmcapi"
	"github.com/phoenixnap/go-sdk-bmc/ipapi"
	"github.com/phoenixnap/go-sdk-bmc/tagapi"

	"ccm-sandbox/go/internal/simcloudtest"
)

// tagName is a fresh tag name (tags take letters, digits, dashes and underscores).
func tagName() string { return strings.ReplaceAll(simcloudtest.UniqueName("tag"), ".", "-") }

// ensureTags is what phoenixNAP's CCM does before it tags a block (phoenixnap/tags.go): list every tag, create the
// missing ones. The tags are then records of their own, listed with the resources carrying them.
func TestTagsAreRecordsListedWithTheirResources(t *testing.T) {
	c := clients(t)
	name := tagName()
	all, _, err := c.Tag.TagsApi.TagsGet(ctx(t)).Execute()
	if err != nil || slices.ContainsFunc(all, func(g tagapi.Tag) bool { return g.Name == name }) {
		t.Fatalf("list: %v %+v", err, all)
	}
	made, res, err := c.Tag.TagsApi.TagsPost(ctx(t)).TagCreate(*tagapi.NewTagCreate(name, false)).Execute()
	if err != nil || status(t, res) != http.StatusCreated || made.Name != name || made.IsBillingTag || !strings.HasPrefix(made.Id, "a1") {
		t.Fatalf("create: %v %+v", err, made)
	}
	t.Cleanup(func() { _, _, _ = c.Tag.TagsApi.TagsTagIdDelete(ctx(t), made.Id).Execute() })
	block := createBlock(t, c, "/29", ipapi.TagAssignmentRequest{Name: name, Value: ptr("b")})
	server := createServer(t, c, "", bmcapi.TagAssignmentRequest{Name: name, Value: ptr("s")})
	if len(block.Tags) != 1 || block.Tags[0].Id != made.Id || len(server.Tags) != 1 || server.Tags[0].Id != made.Id {
		t.Fatalf("the resources do not show the tag's id %s: %+v %+v", made.Id, block.Tags, server.Tags)
	}
	got, _, err := c.Tag.TagsApi.TagsGet(ctx(t)).Name(name).Execute()
	if err != nil || len(got) != 1 || got[0].Id != made.Id {
		t.Fatalf("by name: %v %+v", err, got)
	}
	var assigned []string
	for _, a := range got[0].ResourceAssignments {
		assigned = append(assigned, a.ResourceName+"="+a.GetValue())
	}
	slices.Sort(assigned)
	want := []string{"/bmc/servers/" + server.Id + "=s", "/ips/ip-blocks/" + block.Id + "=b"}
	if !slices.Equal(assigned, want) || !slices.Equal(slices.Sorted(slices.Values(got[0].Values)), []string{"b", "s"}) {
		t.Fatalf("assignments %v values %v, want %v", assigned, got[0].Values, want)
	}
}

// A second tag of one name: 409, which tagapi decodes into its Error model, naming the field.
func TestADuplicateTagNameIsAConflictNamingIt(t *testing.T) {
	c := clients(t)
	name := tagName()
	made, _, err := c.Tag.TagsApi.TagsPost(ctx(t)).TagCreate(*tagapi.NewTagCreate(name, true)).Execute()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _, _ = c.Tag.TagsApi.TagsTagIdDelete(ctx(t), made.Id).Execute() })
	_, res, err := c.Tag.TagsApi.TagsPost(ctx(t)).TagCreate(*tagapi.NewTagCreate(name, false)).Execute()
	e := tagError(t, err)
	m, ok := e.Model().(tagapi.Error)
	if status(t, res) != http.StatusConflict || !ok || len(m.ValidationErrors) != 1 || !strings.HasPrefix(m.ValidationErrors[0], "name: ") {
		t.Fatalf("%d %#v %s", res.StatusCode, e.Model(), e.Body())
	}
}

// A rename reaches the resources carrying the tag; a delete takes it off them; the tag is then 404.
func TestRenamingAndDeletingATagReachTheResources(t *testing.T) {
	c := clients(t)
	name, renamed := tagName(), tagName()
	made, _, err := c.Tag.TagsApi.TagsPost(ctx(t)).TagCreate(*tagapi.NewTagCreate(name, false)).Execute()
	if err != nil {
		t.Fatal(err)
	}
	block := createBlock(t, c, "/29", ipapi.TagAssignmentRequest{Name: name, Value: ptr("v")})
	update := tagapi.NewTagUpdate(renamed, true)
	update.SetDescription("renamed")
	got, _, err := c.Tag.TagsApi.TagsTagIdPatch(ctx(t), made.Id).TagUpdate(*update).Execute()
	if err != nil || got.Id != made.Id || got.Name != renamed || !got.IsBillingTag || got.GetDescription() != "renamed" {
		t.Fatalf("patch: %v %+v", err, got)
	}
	b, _, err := c.IP.IPBlocksApi.IpBlocksIpBlockIdGet(ctx(t), block.Id).Execute()
	if err != nil || len(b.Tags) != 1 || b.Tags[0].Name != renamed || b.Tags[0].GetValue() != "v" {
		t.Fatalf("block after the rename: %v %+v", err, b)
	}
	del, _, err := c.Tag.TagsApi.TagsTagIdDelete(ctx(t), made.Id).Execute()
	if err != nil || del.TagId != made.Id || del.Result == "" {
		t.Fatalf("delete: %v %+v", err, del)
	}
	if b, _, err = c.IP.IPBlocksApi.IpBlocksIpBlockIdGet(ctx(t), block.Id).Execute(); err != nil || len(b.Tags) != 0 {
		t.Fatalf("block after the delete: %v %+v", err, b)
	}
	if _, res, _ := c.Tag.TagsApi.TagsTagIdGet(ctx(t), made.Id).Execute(); status(t, res) != http.StatusNotFound {
		t.Fatalf("deleted tag: %d", res.StatusCode)
	}
}
