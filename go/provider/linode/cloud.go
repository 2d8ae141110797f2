package linode

import (
	"context"
	"net/http"

	"github.com/linode/linodego/v2"
	cloudprovider "k8s.io/cloud-provider"

	"ccm-sandbox/go/internal/providerkit"
)

// ProviderName is the name passed to --cloud-provider and the scheme of every providerID.
const ProviderName = "linode"

func init() {
	providerkit.Register(ProviderName, providerkit.EnvOnly("LINODE_* environment variables", LoadConfig), NewCloud)
}

// NewClient is a linodego client for cfg, set up as Linode's CCM sets it up (UseURL keeps the scheme, host
// and API version of the URL).
func NewClient(cfg Config) (*linodego.Client, error) {
	c, err := linodego.NewClient(&http.Client{Timeout: providerkit.RequestTimeout})
	if err != nil {
		return nil, err
	}
	if _, err := c.UseURL(cfg.URL); err != nil {
		return nil, err
	}
	c.SetToken(cfg.Token)
	c.SetUserAgent("ccm-sandbox-upstream-ccm " + linodego.DefaultUserAgent)
	return &c, nil
}

// NewCloud builds the provider after one authenticated call (the profile), so a wrong URL or token fails
// at start with one line. Linode has regions only, which InstancesV2 reports; routes are not provided yet:
// Linode's route controller programs VPC interfaces' ip_ranges, which the dialect serves, but this provider
// does not use them. NodeBalancers are found by their label, which carries the Service's UID, so no
// cluster id is needed.
func NewCloud(ctx context.Context, cfg Config) (_ *providerkit.Cloud, err error) {
	defer providerkit.Wrap(&err, ProviderName, "NewCloud")
	client, err := NewClient(cfg)
	if err != nil {
		return nil, err
	}
	err = providerkit.Probe(ctx, providerkit.RequestTimeout, "the Linode API", cfg.URL, func(ctx context.Context) error {
		_, err := client.GetProfile(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	lbs := &loadBalancers{client: client, region: cfg.Region}
	return providerkit.NewCloud(ProviderName, providerkit.Capabilities{
		InstancesV2:  newInstances(client),
		LoadBalancer: lbs,
		// https ports read their certificate from a Secret, as Linode's CCM does (its role may get Secrets).
		Initialize: func(b cloudprovider.ControllerClientBuilder, _ <-chan struct{}) {
			lbs.kube = b.ClientOrDie("linode-load-balancers")
		},
	}), nil
}
