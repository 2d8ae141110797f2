package phoenixnap

import (
	"context"
	"net/http"

	"github.com/phoenixnap/go-sdk-bmc/bmcapi"
	"github.com/phoenixnap/go-sdk-bmc/ipapi"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"ccm-sandbox/go/internal/providerkit"
	"ccm-sandbox/go/provider/simcloud/client"
)

// ProviderName is the name passed to --cloud-provider and the scheme of every providerID.
const ProviderName = "phoenixnap"

const userAgent = "ccm-sandbox-upstream-ccm"

func init() {
	providerkit.Register(ProviderName, providerkit.EnvOnly("PNAP_* and SIMCLOUD_* environment variables", LoadConfig), NewCloud)
}

// Clients are go-sdk-bmc's BMC and IP API clients on one client-credentials HTTP client, as phoenixNAP's CCM
// builds them (with the scopes it asks for), pointed at cfg's URLs.
type Clients struct {
	BMC *bmcapi.APIClient
	IP  *ipapi.APIClient
}

// NewClients builds the SDK clients for cfg.
func NewClients(cfg Config) Clients {
	cc := clientcredentials.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, TokenURL: cfg.TokenURL, Scopes: []string{"bmc", "bmc.read", "tags", "tags.read"}}
	base := context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Timeout: providerkit.RequestTimeout})
	hc := cc.Client(base)
	b := bmcapi.NewConfiguration()
	b.HTTPClient, b.Servers, b.UserAgent = hc, bmcapi.ServerConfigurations{{URL: cfg.BMCURL}}, userAgent
	i := ipapi.NewConfiguration()
	i.HTTPClient, i.Servers, i.UserAgent = hc, ipapi.ServerConfigurations{{URL: cfg.IPURL}}, userAgent
	return Clients{BMC: bmcapi.NewAPIClient(b), IP: ipapi.NewAPIClient(i)}
}

// NewCloud builds the provider after one BMC call (a token for the credentials, then the servers), so wrong
// credentials or URLs fail at start with one line. phoenixNAP has locations only, which InstancesV2 reports
// as regions, and no route controller; load balancers carry the Service's UID, so no cluster id is needed.
func NewCloud(ctx context.Context, cfg Config) (_ *providerkit.Cloud, err error) {
	defer providerkit.Wrap(&err, ProviderName, "NewCloud")
	c := NewClients(cfg)
	err = providerkit.Probe(ctx, providerkit.RequestTimeout, "the phoenixNAP BMC API", cfg.BMCURL, func(ctx context.Context) error {
		_, _, err := c.BMC.ServersApi.ServersGet(ctx).Execute()
		return err
	})
	if err != nil {
		return nil, err
	}
	sim, err := client.New(cfg.SimcloudEndpoint, cfg.SimcloudToken, client.WithUserAgent(userAgent), client.WithTimeout(providerkit.RequestTimeout))
	if err != nil {
		return nil, err
	}
	return providerkit.NewCloud(ProviderName, providerkit.Capabilities{
		InstancesV2:  newInstances(c.BMC),
		LoadBalancer: &loadBalancers{ip: c.IP, sim: sim, location: cfg.Location},
	}), nil
}
