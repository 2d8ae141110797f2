package phoenixnap

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/phoenixnap/go-sdk-bmc/bmcapi"
	"golang.org/x/oauth2"
)

// The client-credentials flow as phoenixNAP's CCM runs it: a bearer that lasts an hour, fetched on first use.
func TestClientCredentialsGiveAnHourLongBearer(t *testing.T) {
	tok, err := Credentials(sim, ClientID(sim.Token), sim.Token).Token(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if tok.TokenType != "Bearer" || tok.AccessToken == "" || tok.AccessToken == sim.Token {
		t.Fatalf("token %+v", tok)
	}
	if left := time.Until(tok.Expiry); left < 55*time.Minute || left > 61*time.Minute {
		t.Errorf("expires in %v, want about an hour", left)
	}
	if _, _, err := clients(t).BMC.ServersApi.ServersGet(ctx(t)).Execute(); err != nil {
		t.Fatal(err)
	}
}

// A wrong secret or a client id that does not go with it: x/oauth2's RetrieveError with OAuth2's invalid_client.
func TestWrongClientCredentialsAreInvalidClient(t *testing.T) {
	for _, cc := range []struct{ id, secret string }{{ClientID("nope"), "nope"}, {ClientID(sim.Token) + "x", sim.Token}, {"", sim.Token}} {
		c := NewClients(sim, Credentials(sim, cc.id, cc.secret))
		_, _, err := c.BMC.ServersApi.ServersGet(ctx(t)).Execute()
		var re *oauth2.RetrieveError
		if !errors.As(err, &re) {
			t.Fatalf("client %q: want an *oauth2.RetrieveError, got %T %v", cc.id, err, err)
		}
		if re.ErrorCode != "invalid_client" || re.Response.StatusCode != http.StatusUnauthorized {
			t.Errorf("client %q: %d %q %q", cc.id, re.Response.StatusCode, re.ErrorCode, re.ErrorDescription)
		}
	}
}

// phoenixNAP's API takes only its access tokens: the project token as a bearer is 401 in phoenixNAP's body.
func TestTheProjectTokenIsNotABearer(t *testing.T) {
	hc := oauth2.NewClient(context.Background(), oauth2.StaticTokenSource(&oauth2.Token{AccessToken: sim.Token}))
	_, res, err := NewClientsWith(sim, hc).BMC.ServersApi.ServersGet(ctx(t)).Execute()
	e := bmcError(t, err)
	if status(t, res) != http.StatusUnauthorized {
		t.Fatalf("status %d", res.StatusCode)
	}
	if m, ok := e.Model().(bmcapi.Error); !ok || m.Message != "Unauthorized" {
		t.Errorf("model %#v", e.Model())
	}
}

// A token expires on simcloud's clock: after an hour of simulated time the old bearer is 401 and a new one works.
func TestABearerExpiresOnSimcloudsClock(t *testing.T) {
	tok, err := Credentials(sim, ClientID(sim.Token), sim.Token).Token(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	old := NewClientsWith(sim, oauth2.NewClient(context.Background(), oauth2.StaticTokenSource(tok)))
	if _, _, err := old.BMC.ServersApi.ServersGet(ctx(t)).Execute(); err != nil {
		t.Fatal(err)
	}
	sim.Do(t, "POST", "/_sim/time/fast_forward", map[string]any{"ms": 3601 * 1000}, nil)
	_, res, err := old.BMC.ServersApi.ServersGet(ctx(t)).Execute()
	bmcError(t, err)
	if status(t, res) != http.StatusUnauthorized {
		t.Fatalf("expired bearer: status %d", res.StatusCode)
	}
	if _, _, err := clients(t).BMC.ServersApi.ServersGet(ctx(t)).Execute(); err != nil {
		t.Fatalf("new bearer: %v", err)
	}
}
