package brightbox

import (
	"strings"

	"github.com/brightbox/gobrightbox/v2/endpoint"

	"ccm-sandbox/go/internal/providerkit"
)

// The environment the provider reads: Brightbox's CCM's names (k8ssdk's) for the API's base URL and an API
// client's credentials.
const (
	EnvAPIURL       = "BRIGHTBOX_API_URL"
	EnvClientID     = "BRIGHTBOX_CLIENT"
	EnvClientSecret = "BRIGHTBOX_CLIENT_SECRET"
)

// Config is the provider's configuration. Brightbox's CCM can also log in as a user (BRIGHTBOX_USER_NAME,
// BRIGHTBOX_PASSWORD, BRIGHTBOX_ACCOUNT with a public app's id); the persona grants API clients only, so
// neither does this provider.
type Config struct {
	// APIURL is the base URL below which gobrightbox finds the API (1.0/) and the token endpoint (token/).
	APIURL                 string
	ClientID, ClientSecret string
}

// LoadConfig reads the configuration through lookup, every problem named at once.
func LoadConfig(lookup providerkit.Lookup) (_ Config, err error) {
	defer providerkit.Wrap(&err, ProviderName, "LoadConfig")
	env := providerkit.Env(lookup)
	cfg := Config{
		APIURL:       env.URL(EnvAPIURL, endpoint.DefaultBaseURL, "http://127.0.0.1:8080/brightbox/"),
		ClientID:     env.Required(EnvClientID, "the API client id (cli-…)"),
		ClientSecret: env.Token(EnvClientSecret, "the API client's secret"),
	}
	// gobrightbox resolves 1.0/ and token/ against the URL: without its final slash they would replace its
	// last path segment.
	if cfg.APIURL != "" && !strings.HasSuffix(cfg.APIURL, "/") {
		cfg.APIURL += "/"
	}
	return cfg, env.Err("invalid configuration")
}
