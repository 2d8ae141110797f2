// Package phoenixnap holds the contract tests of simcloud's phoenixNAP persona (served under /pnap): they
// start a real simcloud process (ccm-sandbox/go/internal/simcloudtest) and reach it only through go-sdk-bmc's
// bmcapi, ipapi, networkapi and tagapi clients, each on an OAuth2 client-credentials HTTP client as phoenixNAP's CCM
// builds them, pointed at the persona's token endpoint and APIs instead of the URLs phoenixNAP compiles in.
package phoenixnap

import (
	"context"
	"net/http"
	"time"

	"github.com/phoenixnap/go-sdk-bmc/bmcapi"
	"github.com/phoenixnap/go-sdk-bmc/ipapi"
	"github.com/phoenixnap/go-sdk-bmc/networkapi"
	"github.com/phoenixnap/go-sdk-bmc/tagapi"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"ccm-sandbox/go/internal/simcloudtest"
)

// Where the persona serves what phoenixNAP serves at auth.phoenixnap.com and api.phoenixnap.com.
const (
	TokenPath   = "/pnap/auth/realms/BMC/protocol/openid-connect/token"
	BMCPath     = "/pnap/bmc/v1"
	IPPath      = "/pnap/ips/v1"
	NetworkPath = "/pnap/networks/v1"
	TagPath     = "/pnap/tag-manager/v1"
)

// ClientID is the client id that goes with a client secret (a project token): the persona's rule.
func ClientID(secret string) string { return simcloudtest.PhoenixnapClientID(secret) }

// Clients are the four SDK clients sharing one client-credentials token source.
type Clients struct {
	BMC     *bmcapi.APIClient
	IP      *ipapi.APIClient
	Network *networkapi.APIClient
	Tag     *tagapi.APIClient
}

// Credentials are the client credentials config for sim, as phoenixNAP's CCM fills it in (scopes included).
func Credentials(sim *simcloudtest.Server, id, secret string) *clientcredentials.Config {
	return &clientcredentials.Config{ClientID: id, ClientSecret: secret, TokenURL: sim.URL + TokenPath, Scopes: []string{"bmc", "bmc.read", "tags", "tags.read"}}
}

// NewClients builds the SDK clients on cc's HTTP client.
func NewClients(sim *simcloudtest.Server, cc *clientcredentials.Config) Clients {
	base := context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Timeout: 30 * time.Second})
	hc := cc.Client(base)
	return NewClientsWith(sim, hc)
}

// NewClientsWith builds the SDK clients on any HTTP client (one that sends a bearer of its own).
func NewClientsWith(sim *simcloudtest.Server, hc *http.Client) Clients {
	b := bmcapi.NewConfiguration()
	b.HTTPClient, b.Servers, b.UserAgent = hc, bmcapi.ServerConfigurations{{URL: sim.URL + BMCPath}}, "ccm-sandbox-contract"
	i := ipapi.NewConfiguration()
	i.HTTPClient, i.Servers, i.UserAgent = hc, ipapi.ServerConfigurations{{URL: sim.URL + IPPath}}, "ccm-sandbox-contract"
	n := networkapi.NewConfiguration()
	n.HTTPClient, n.Servers, n.UserAgent = hc, networkapi.ServerConfigurations{{URL: sim.URL + NetworkPath}}, "ccm-sandbox-contract"
	g := tagapi.NewConfiguration()
	g.HTTPClient, g.Servers, g.UserAgent = hc, tagapi.ServerConfigurations{{URL: sim.URL + TagPath}}, "ccm-sandbox-contract"
	return Clients{BMC: bmcapi.NewAPIClient(b), IP: ipapi.NewAPIClient(i), Network: networkapi.NewAPIClient(n), Tag: tagapi.NewAPIClient(g)}
}
