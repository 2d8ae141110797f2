package brightbox

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/brightbox/gobrightbox/v2/clientcredentials"
	"github.com/brightbox/gobrightbox/v2/endpoint"
	"golang.org/x/oauth2"

	"ccm-sandbox/go/internal/simcloudtest"
)

// k8ssdk connects with the sandbox's API client and, as it does before handing the client out, reads the
// accounts: the project, active, with every zone.
func TestK8sSDKConnectsWithTheSandboxsAPIClient(t *testing.T) {
	accounts, err := connect(t).Accounts(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(accounts) != 1 || accounts[0].Status.String() != "active" || len(accounts[0].Zones) != 3 || accounts[0].ID[:4] != "acc-" {
		t.Fatalf("accounts %+v", accounts)
	}
}

// The token gobrightbox's client-credentials config gets (with the scopes k8ssdk asks for) lasts two hours.
func TestClientCredentialsGiveATwoHourBearer(t *testing.T) {
	cc := &clientcredentials.Config{ID: ClientID(sim.Token), Secret: sim.Token, Config: endpoint.Config{BaseURL: sim.URL + BasePath, Scopes: endpoint.FullScope}}
	_, ts, err := cc.Client(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := ts.Token()
	if err != nil {
		t.Fatal(err)
	}
	if tok.Type() != "Bearer" || tok.AccessToken == "" || tok.AccessToken == sim.Token || tok.Extra("scope") != "infrastructure orbit" {
		t.Fatalf("token %+v scope %v", tok, tok.Extra("scope"))
	}
	if left := time.Until(tok.Expiry); left < 115*time.Minute || left > 121*time.Minute {
		t.Errorf("expires in %v, want two hours", left)
	}
}

// Wrong credentials fail k8ssdk's connect with x/oauth2's RetrieveError carrying OAuth2's invalid_client.
func TestWrongCredentialsAreInvalidClient(t *testing.T) {
	for _, tc := range []struct{ name, id, secret string }{
		{"unknown secret", ClientID("nope"), "nope"},
		{"id of another secret", ClientID(sim.Token + "x"), sim.Token},
		{"not a client id", "app-dkmch", sim.Token},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := connectAs(t, tc.id, tc.secret).Err
			var re *oauth2.RetrieveError
			if !errors.As(err, &re) {
				t.Fatalf("want an *oauth2.RetrieveError, got %T %v", err, err)
			}
			if re.ErrorCode != "invalid_client" || re.Response.StatusCode != http.StatusUnauthorized {
				t.Errorf("%d %q %q", re.Response.StatusCode, re.ErrorCode, re.ErrorDescription)
			}
		})
	}
}

// Brightbox's API takes only its own access tokens: the project token as a bearer is 401 with OAuth2's
// invalid_token, which gobrightbox's APIError reads into AuthError.
func TestTheProjectTokenIsNotABearer(t *testing.T) {
	c, err := WithBearer(sim, sim.Token)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Servers(ctx(t))
	if e := apiError(t, err, http.StatusUnauthorized); e.AuthError != "invalid_token" || e.AuthErrorDescription == "" {
		t.Fatalf("%+v", e)
	}
}

// An access token expires on the wall clock, as its client computes it (x/oauth2 keeps a bearer until its own
// clock passes the expiry): k8ssdk's client and a bearer taken from it go on working after simcloud's time is
// advanced past a token's life.
func TestABearerOutlivesATimeAdvancePastItsLife(t *testing.T) {
	c := connect(t)
	tok, err := c.ExtractTokenID()
	if err != nil {
		t.Fatal(err)
	}
	old := simcloudtest.Must(WithBearer(sim, tok)).Get(t)
	sim.Do(t, "POST", "/_sim/time/fast_forward", map[string]any{"ms": 3 * 3600 * 1000}, nil)
	if _, err := old.Zones(ctx(t)); err != nil {
		t.Fatalf("the bearer after three hours of simulated time: %v", err)
	}
	if _, err := c.Zones(ctx(t)); err != nil {
		t.Fatalf("the client after three hours of simulated time: %v", err)
	}
}
