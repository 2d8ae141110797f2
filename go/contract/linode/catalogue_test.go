package linode

import (
	"net/http"
	"testing"

	"github.com/linode/linodego/v2"
)

func TestProfileAnswersAValidTokenAnd401sAnInvalidOne(t *testing.T) {
	p, err := client(t).GetProfile(ctx(t))
	if err != nil || p.Username == "" {
		t.Fatalf("GetProfile = %+v, %v", p, err)
	}
	bad, err := NewClient(sim, "not-a-token")
	if err != nil {
		t.Fatal(err)
	}
	_, err = bad.GetProfile(ctx(t))
	if !linodego.ErrHasStatus(err, http.StatusUnauthorized) {
		t.Fatalf("GetProfile with a bad token: %v, want 401", err)
	}
	if e := apiError(t, err); e.Message != "Invalid Token" {
		t.Errorf("401 message %q, want Linode's \"Invalid Token\"", e.Message)
	}
}

func TestRegionsAndTypesListAndGet(t *testing.T) {
	c := client(t)
	regions, err := c.ListRegions(ctx(t), nil)
	if err != nil || len(regions) == 0 {
		t.Fatalf("ListRegions = %v, %v", regions, err)
	}
	r, err := c.GetRegion(ctx(t), regions[0].ID)
	if err != nil || r.ID != regions[0].ID {
		t.Fatalf("GetRegion(%s) = %+v, %v", regions[0].ID, r, err)
	}
	types, err := c.ListTypes(ctx(t), nil)
	if err != nil || len(types) == 0 {
		t.Fatalf("ListTypes = %v, %v", types, err)
	}
	ty, err := c.GetType(ctx(t), types[0].ID)
	if err != nil || ty.VCPUs == 0 || ty.Memory == 0 {
		t.Fatalf("GetType(%s) = %+v, %v", types[0].ID, ty, err)
	}
	if _, err := c.GetRegion(ctx(t), "nowhere-1"); !linodego.IsNotFound(err) {
		t.Fatalf("GetRegion(nowhere-1): %v, want 404", err)
	}
}
