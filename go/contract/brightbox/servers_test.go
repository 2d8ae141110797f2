package brightbox

import (
	"context"
	"net/http"
	"strings"
	"testing"

	brightbox "github.com/brightbox/gobrightbox/v2"
)

// A server is creating when made (202) and active once simcloud has built it: in its zone, with its type and
// image, and an interface carrying its public IPv4, which Brightbox's CCM writes as an ExternalIP.
func TestAServerGoesFromCreatingToActive(t *testing.T) {
	c := connect(t)
	name := "bb-" + strings.ReplaceAll(t.Name(), "_", "-")
	s, err := c.CreateServer(ctx(t), brightbox.ServerOptions{Name: &name, Image: ptr("ubuntu-24.04"), ServerType: ptr("sc-medium"), Zone: ptr("sim-1-b")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = c.DestroyServer(context.Background(), s.ID) })
	if s.Status.String() != "creating" || !strings.HasPrefix(s.ID, "srv-") {
		t.Errorf("at create: %s %s", s.ID, s.Status)
	}
	got := waitServer(t, c, s.ID, "active")
	if got.Name != name || got.Zone.Handle != "sim-1-b" || got.ServerType.Handle != "sc-medium" || got.Image.ID != "img-00001" || got.Hostname != s.ID {
		t.Errorf("server %+v", got)
	}
	if len(got.Interfaces) != 1 || got.Interfaces[0].IPv4Address == "" || got.StartedAt == nil {
		t.Errorf("interfaces %+v started %v", got.Interfaces, got.StartedAt)
	}
	list, err := c.Servers(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, x := range list {
		found = found || x.ID == s.ID
	}
	if !found {
		t.Errorf("%s not in the list", s.ID)
	}
}

// Destroying a server answers 202 with the server deleting; then it is gone: 404 missing_resource.
func TestADestroyedServerIsMissing(t *testing.T) {
	c := connect(t)
	s := createServer(t, c)
	out, err := c.DestroyServer(ctx(t), s.ID)
	if err != nil || (out.Status.String() != "deleting" && out.Status.String() != "deleted") {
		t.Fatalf("destroy: %+v %v", out, err)
	}
	goneOr404(t, "server "+s.ID, func(ctx context.Context) error { _, err := c.Server(ctx, s.ID); return err }, nil)
	_, err = c.Server(ctx(t), s.ID)
	if e := apiError(t, err, http.StatusNotFound); e.ErrorName != "missing_resource" || e.Errors[0] != "server "+s.ID+" not found" {
		t.Fatalf("%+v", e)
	}
}

// What the API refuses in a server's fields: 400 bad_request, one message naming the field.
func TestBadServerFieldsAreBadRequests(t *testing.T) {
	refuses(t, (*brightbox.Client).CreateServer, []badRequest[brightbox.ServerOptions]{
		{"unknown type", brightbox.ServerOptions{Name: ptr("x"), Image: ptr("img-00001"), ServerType: ptr("typ-zzzzz")}, "server_type: unknown server type typ-zzzzz"},
		{"unknown image", brightbox.ServerOptions{Name: ptr("x"), Image: ptr("img-zzzzz"), ServerType: ptr("sc-small")}, "image: unknown image img-zzzzz"},
		{"unknown zone", brightbox.ServerOptions{Name: ptr("x"), Image: ptr("img-00001"), ServerType: ptr("sc-small"), Zone: ptr("gb1-z")}, "zone: unknown zone gb1-z"},
		{"bad name", brightbox.ServerOptions{Name: ptr("-x-"), Image: ptr("img-00001"), ServerType: ptr("sc-small")}, "name: must be letters"},
	})
}

// badRequest is a request the API refuses with 400 bad_request, one of its messages starting with field.
type badRequest[O any] struct {
	name  string
	opts  O
	field string
}

// refuses sends each case through call, an SDK method, and checks the refusal.
func refuses[O, R any](t *testing.T, call func(*brightbox.Client, context.Context, O) (R, error), cases []badRequest[O]) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := call(connect(t), ctx(t), tc.opts)
			if e := apiError(t, err, http.StatusBadRequest); e.ErrorName != "bad_request" || !hasPrefix(e.Errors, tc.field) {
				t.Fatalf("%q %q", e.ErrorName, e.Errors)
			}
		})
	}
}

// hasPrefix says whether one of msgs starts with prefix.
func hasPrefix(msgs []string, prefix string) bool {
	for _, m := range msgs {
		if strings.HasPrefix(m, prefix) {
			return true
		}
	}
	return false
}
