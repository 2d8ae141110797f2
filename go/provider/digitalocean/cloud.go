package digitalocean

import (
	"context"
	"fmt"
	"net/http"

	"github.com/digitalocean/godo"
	"golang.org/x/oauth2"
	cloudprovider "k8s.io/cloud-provider"

	"ccm-sandbox/go/internal/providerkit"
)

// ProviderName is the name passed to --cloud-provider and the scheme of every providerID.
const ProviderName = "digitalocean"

func init() {
	providerkit.Register(ProviderName, providerkit.EnvOnly("DO_* and REGION environment variables", LoadConfig), NewCloud)
}

// NewClient is a godo client for cfg, set up as DigitalOcean's CCM sets it up: an oauth2 client with the
// token and SetBaseURL with DO_OVERRIDE_URL.
func NewClient(cfg Config) (*godo.Client, error) {
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Timeout: providerkit.RequestTimeout})
	hc := oauth2.NewClient(ctx, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: cfg.Token}))
	return godo.New(hc, godo.SetBaseURL(cfg.URL), godo.SetUserAgent("ccm-sandbox-upstream-ccm"))
}

// NewCloud builds the provider after checking the region against the API's region names, as DigitalOcean's
// CCM does, so a wrong URL, token or region fails at start with one line. DigitalOcean has regions only,
// which InstancesV2 reports, and its CCM has no route controller either; load balancers are found by the
// id annotation the provider writes, else by their name, which carries the Service's UID, so no cluster id
// is needed.
func NewCloud(ctx context.Context, cfg Config) (_ *providerkit.Cloud, err error) {
	defer providerkit.Wrap(&err, ProviderName, "NewCloud")
	client, err := NewClient(cfg)
	if err != nil {
		return nil, err
	}
	var regions []godo.Region
	err = providerkit.Probe(ctx, providerkit.RequestTimeout, "the DigitalOcean API", cfg.URL, func(ctx context.Context) (err error) {
		regions, _, err = client.Regions.List(ctx, &godo.ListOptions{PerPage: 200})
		return err
	})
	if err != nil {
		return nil, err
	}
	known := false
	for _, r := range regions {
		known = known || r.Name == cfg.Region
	}
	if !known {
		return nil, fmt.Errorf("%s=%q is not a region of the API at %s", EnvRegion, cfg.Region, cfg.URL)
	}
	lbs := &loadBalancers{client: client, region: cfg.Region}
	return providerkit.NewCloud(ProviderName, providerkit.Capabilities{
		InstancesV2:  newInstances(client),
		LoadBalancer: lbs,
		// The load balancers write their id and type on the Service, as DigitalOcean's CCM does.
		Initialize: func(b cloudprovider.ControllerClientBuilder, _ <-chan struct{}) {
			lbs.kube = b.ClientOrDie("digitalocean-load-balancers")
		},
	}), nil
}
