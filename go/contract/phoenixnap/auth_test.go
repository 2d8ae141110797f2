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

// A token expires on the wall clock, as its client computes it: x/oauth2 keeps a bearer until its own clock
// passes the expiry and never retries a 401, so a CCM's clients (one token each, fetched once) must go on
// working after simcloud's time is advanced past a token's life.
func TestClientsKeepWorkingAfterATimeAdvancePastTheTokensLife(t *testing.T) {
	tokens := 0
	cc := Credentials(sim, ClientID(sim.Token), sim.Token)
	counting := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.URL.Path == TokenPath {
			tokens++
		}
		return http.DefaultTransport.RoundTrip(r)
	})}
	c := NewClientsWith(sim, cc.Client(context.WithValue(context.Background(), oauth2.HTTPClient, counting)))
	if _, _, err := c.BMC.ServersApi.ServersGet(ctx(t)).Execute(); err != nil {
		t.Fatal(err)
	}
	sim.Do(t, "POST", "/_sim/time/fast_forward", map[string]any{"ms": 2 * 3600 * 1000}, nil)
	if _, _, err := c.BMC.ServersApi.ServersGet(ctx(t)).Execute(); err != nil {
		t.Fatalf("after two hours of simulated time: %v", err)
	}
	if _, _, err := c.IP.IPBlocksApi.IpBlocksGet(ctx(t)).Execute(); err != nil {
		t.Fatalf("after two hours of simulated time: %v", err)
	}
	if tokens != 1 {
		t.Errorf("%d token requests, want the one bearer reused", tokens)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
