package phoenixnap

import "ccm-sandbox/go/internal/providerkit"

// The environment the provider reads: phoenixNAP's CCM's names for the credentials and the location, the URLs
// that CCM has compiled in, and simcloud's own API for the load balancer carrying a block's traffic.
const (
	EnvClientID         = "PNAP_CLIENT_ID"
	EnvClientSecret     = "PNAP_CLIENT_SECRET"
	EnvLocation         = "PNAP_LOCATION"
	EnvTokenURL         = "PNAP_TOKEN_URL"
	EnvBMCURL           = "PNAP_BMC_API_URL"
	EnvIPURL            = "PNAP_IP_API_URL"
	EnvSimcloudEndpoint = "SIMCLOUD_ENDPOINT"
	EnvSimcloudToken    = "SIMCLOUD_TOKEN"
)

// phoenixNAP's own endpoints, used when the URL variables are unset.
const (
	DefaultTokenURL = "https://auth.phoenixnap.com/auth/realms/BMC/protocol/openid-connect/token"
	DefaultBMCURL   = "https://api.phoenixnap.com/bmc/v1"
	DefaultIPURL    = "https://api.phoenixnap.com/ips/v1"
)

// Config is the provider's configuration.
type Config struct {
	ClientID, ClientSecret, Location string
	TokenURL, BMCURL, IPURL          string
	SimcloudEndpoint, SimcloudToken  string
}

// LoadConfig reads the configuration through lookup, every problem named at once.
func LoadConfig(lookup providerkit.Lookup) (_ Config, err error) {
	defer providerkit.Wrap(&err, ProviderName, "LoadConfig")
	env := providerkit.Env(lookup)
	cfg := Config{
		ClientID:         env.Required(EnvClientID, "the OAuth2 client id"),
		ClientSecret:     env.Token(EnvClientSecret, "the OAuth2 client secret"),
		Location:         env.Required(EnvLocation, "the location of IP blocks, e.g. sim-1"),
		TokenURL:         env.URL(EnvTokenURL, DefaultTokenURL, "http://127.0.0.1:8080/pnap/auth/realms/BMC/protocol/openid-connect/token"),
		BMCURL:           env.URL(EnvBMCURL, DefaultBMCURL, "http://127.0.0.1:8080/pnap/bmc/v1"),
		IPURL:            env.URL(EnvIPURL, DefaultIPURL, "http://127.0.0.1:8080/pnap/ips/v1"),
		SimcloudEndpoint: env.URL(EnvSimcloudEndpoint, "", "http://127.0.0.1:8080"),
		SimcloudToken:    env.Token(EnvSimcloudToken, "simcloud's project token (its load balancers carry the blocks' traffic)"),
	}
	return cfg, env.Err("invalid configuration")
}
