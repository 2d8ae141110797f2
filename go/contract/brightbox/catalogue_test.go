package brightbox

import (
	"net/http"
	"testing"
)

// Zones, server types and images decode strictly into gobrightbox's structs; zones and server types are also
// found by handle, as Brightbox's CCM finds them, and by id.
func TestTheCatalogue(t *testing.T) {
	c := connect(t)
	zones, err := c.Zones(ctx(t))
	if err != nil || len(zones) != 3 || zones[0].Handle != "sim-1-a" || zones[2].Handle != "sim-2-a" {
		t.Fatalf("zones %+v %v", zones, err)
	}
	if z, err := c.ZoneByHandle(ctx(t), "sim-1-b"); err != nil || z.ID != zones[1].ID {
		t.Fatalf("zone by handle: %+v %v", z, err)
	}
	types, err := c.ServerTypes(ctx(t))
	if err != nil || len(types) != 3 || types[0].Handle != "sc-small" || types[0].RAM != 2048 || types[0].Status.String() != "available" {
		t.Fatalf("server types %+v %v", types, err)
	}
	for _, key := range []string{types[1].ID, types[1].Handle} {
		if st, err := c.ServerType(ctx(t), key); err != nil || st.Handle != "sc-medium" || st.Cores != 2 {
			t.Errorf("server type %s: %+v %v", key, st, err)
		}
	}
	if st, err := c.ServerTypeByHandle(ctx(t), "sc-large"); err != nil || st.ID != types[2].ID {
		t.Errorf("server type by handle: %+v %v", st, err)
	}
	images, err := c.Images(ctx(t))
	if err != nil || len(images) != 3 || images[0].ID != "img-00001" || images[0].Name != "ubuntu-24.04" || !images[0].Official {
		t.Fatalf("images %+v %v", images, err)
	}
}

// A server type that does not exist is 404 in Brightbox's body: missing_resource naming the id.
func TestAMissingServerTypeIsMissingResource(t *testing.T) {
	_, err := connect(t).ServerType(ctx(t), "typ-zzzzz")
	e := apiError(t, err, http.StatusNotFound)
	if e.ErrorName != "missing_resource" || len(e.Errors) == 0 || e.Errors[0] != "server type typ-zzzzz not found" {
		t.Fatalf("%+v", e)
	}
}
