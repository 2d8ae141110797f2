package digitalocean

import "ccm-sandbox/go/internal/providerkit"

// The environment the provider reads, named as DigitalOcean's CCM names it.
const (
	EnvToken  = "DO_ACCESS_TOKEN"
	EnvURL    = "DO_OVERRIDE_URL"
	EnvRegion = "REGION"
)

// DefaultURL is DigitalOcean's API, used when DO_OVERRIDE_URL is unset.
const DefaultURL = "https://api.digitalocean.com/"

// Config is the provider's configuration: the token, the API's URL and the region of load balancers.
type Config = providerkit.APIConfig

var env = providerkit.APIEnv{Token: EnvToken, URL: EnvURL, Region: EnvRegion, DefaultURL: DefaultURL, ExampleURL: "http://127.0.0.1:8080/"}

// LoadConfig reads the configuration through lookup (os.LookupEnv in the binary), every problem named at
// once. The region is required because DigitalOcean's CCM otherwise asks the droplet metadata service,
// which a sandbox does not have.
func LoadConfig(lookup providerkit.Lookup) (_ Config, err error) {
	defer providerkit.Wrap(&err, ProviderName, "LoadConfig")
	return env.Load(lookup)
}
