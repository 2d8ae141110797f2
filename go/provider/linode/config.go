package linode

import "ccm-sandbox/go/internal/providerkit"

// The environment the provider reads, named as Linode's CCM names it.
const (
	EnvToken  = "LINODE_API_TOKEN"
	EnvURL    = "LINODE_URL"
	EnvRegion = "LINODE_REGION"
)

// DefaultURL is Linode's API, used when LINODE_URL is unset.
const DefaultURL = "https://api.linode.com/v4"

// Config is the provider's configuration: the token, the API's URL and the region of NodeBalancers.
type Config = providerkit.APIConfig

var env = providerkit.APIEnv{Token: EnvToken, URL: EnvURL, Region: EnvRegion, DefaultURL: DefaultURL, ExampleURL: "http://127.0.0.1:8080/v4"}

// LoadConfig reads the configuration through lookup (os.LookupEnv in the binary); a missing token or
// region, or a URL without scheme and host, is a problem naming the variable, all reported at once.
func LoadConfig(lookup providerkit.Lookup) (_ Config, err error) {
	defer providerkit.Wrap(&err, ProviderName, "LoadConfig")
	return env.Load(lookup)
}
