package brightbox

import (
	"context"
	"net/http"

	brightbox "github.com/brightbox/gobrightbox/v2"
	"github.com/brightbox/gobrightbox/v2/clientcredentials"
	"github.com/brightbox/gobrightbox/v2/endpoint"
	"golang.org/x/oauth2"

	"ccm-sandbox/go/internal/providerkit"
)

// ProviderName is the name passed to --cloud-provider and the scheme of every providerID.
const ProviderName = "brightbox"

const userAgent = "ccm-sandbox-upstream-ccm"

func init() {
	providerkit.Register(ProviderName, providerkit.EnvOnly("BRIGHTBOX_* environment variables", LoadConfig), NewCloud)
}

// NewClient is gobrightbox's client for cfg's API client, as k8ssdk connects Brightbox's CCM (client
// credentials with the infrastructure and orbit scopes), every exchange bounded by providerkit.RequestTimeout.
func NewClient(cfg Config) (*brightbox.Client, error) {
	cc := &clientcredentials.Config{ID: cfg.ClientID, Secret: cfg.ClientSecret, Config: endpoint.Config{BaseURL: cfg.APIURL, Scopes: endpoint.FullScope}}
	base := context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Timeout: providerkit.RequestTimeout})
	c, err := brightbox.Connect(base, cc)
	if err != nil {
		return nil, err
	}
	c.UserAgent = userAgent
	return c, nil
}

// NewCloud builds the provider after reading the accounts, the call k8ssdk makes before it hands its client
// out, so wrong credentials or a wrong URL fail at start with one line. Load balancer names carry the cluster
// name, hence HasClusterID, as Brightbox's CCM answers.
func NewCloud(ctx context.Context, cfg Config) (_ *providerkit.Cloud, err error) {
	defer providerkit.Wrap(&err, ProviderName, "NewCloud")
	c, err := NewClient(cfg)
	if err != nil {
		return nil, err
	}
	err = providerkit.Probe(ctx, providerkit.RequestTimeout, "the Brightbox API", cfg.APIURL, func(ctx context.Context) error {
		_, err := c.Accounts(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return providerkit.NewCloud(ProviderName, providerkit.Capabilities{
		InstancesV2:  newInstances(c),
		LoadBalancer: &loadBalancers{c: c},
		ClusterID:    true,
	}), nil
}
