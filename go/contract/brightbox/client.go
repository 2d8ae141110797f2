// Package brightbox holds the contract tests of simcloud's Brightbox persona (served under /brightbox): they
// start a real simcloud process (ccm-sandbox/go/internal/simcloudtest) and reach it only through gobrightbox v2,
// connected as Brightbox's CCM connects it: k8ssdk reads BRIGHTBOX_API_URL, BRIGHTBOX_CLIENT and
// BRIGHTBOX_CLIENT_SECRET, gets an access token for the API client from `token/` below the URL and asks for the
// accounts before it hands the client out.
package brightbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"net/http"
	"net/url"
	"strings"

	brightbox "github.com/brightbox/gobrightbox/v2"
	"github.com/brightbox/gobrightbox/v2/endpoint"
	"golang.org/x/oauth2"

	"ccm-sandbox/go/internal/simcloudtest"
)

// Where the persona serves what Brightbox serves at api.gb1.brightbox.com: gobrightbox puts the API at `1.0/`
// and the token endpoint at `token/` below the base URL.
const (
	BasePath = "/brightbox/"
	APIPath  = BasePath + "1.0"
)

// ClientID is the API client id that goes with a client secret (a project token): the persona's rule, `cli-`
// and the first five base-36 digits of 48 bits of a SHA-256.
func ClientID(secret string) string {
	sum := sha256.Sum256([]byte("brightbox-client:" + secret))
	n, _ := new(big.Int).SetString(hex.EncodeToString(sum[:])[:12], 16)
	digits := n.Text(36)
	if len(digits) > 5 {
		digits = digits[:5]
	}
	return "cli-" + strings.Repeat("0", 5-len(digits)) + digits
}

// Env is the environment Brightbox's CCM (k8ssdk) reads, for an API client with secret.
func Env(sim *simcloudtest.Server, id, secret string) map[string]string {
	return map[string]string{"BRIGHTBOX_API_URL": sim.URL + BasePath, "BRIGHTBOX_CLIENT": id, "BRIGHTBOX_CLIENT_SECRET": secret}
}

// staticBearer is gobrightbox's Oauth2 with a fixed access token, for tests of what the API does with a bearer
// it did not issue or that has expired (gobrightbox's own configs always fetch a fresh one).
type staticBearer struct {
	endpoint.Config
	token string
}

func (s *staticBearer) Client(ctx context.Context) (*http.Client, oauth2.TokenSource, error) {
	ts := oauth2.StaticTokenSource(&oauth2.Token{AccessToken: s.token, TokenType: "Bearer"})
	return oauth2.NewClient(ctx, ts), ts, nil
}

// WithBearer is a gobrightbox client that sends token as its bearer.
func WithBearer(sim *simcloudtest.Server, token string) (*brightbox.Client, error) {
	if _, err := url.Parse(sim.URL); err != nil {
		return nil, err
	}
	return brightbox.Connect(context.Background(), &staticBearer{Config: endpoint.Config{BaseURL: sim.URL + BasePath}, token: token})
}
