// Package digitalocean holds the contract tests of simcloud's DigitalOcean API v2 dialect (served under /v2):
// they start a real simcloud process (ccm-sandbox/go/internal/simcloudtest) and reach it only through godo,
// configured the way the DigitalOcean CCM configures it (an oauth2 client and SetBaseURL with DO_OVERRIDE_URL).
package digitalocean

import (
	"context"
	"net/http"
	"time"

	"github.com/digitalocean/godo"
	"golang.org/x/oauth2"

	"ccm-sandbox/go/internal/simcloudtest"
)

// BaseURL is DO_OVERRIDE_URL for sim: godo puts some paths under its base URL (`v2/droplets`) and others at
// the root (`/v2/load_balancers`), so the dialect lives at /v2 on the root and the base URL is the bare server.
func BaseURL(sim *simcloudtest.Server) string { return sim.URL + "/" }

// NewClient is a godo client for sim's DigitalOcean dialect with the given token.
func NewClient(sim *simcloudtest.Server, token string) (*godo.Client, error) {
	ts := oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token})
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Timeout: 30 * time.Second})
	return godo.New(oauth2.NewClient(ctx, ts), godo.SetBaseURL(BaseURL(sim)), godo.SetUserAgent("ccm-sandbox-contract"))
}
