package digitalocean

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// The environment the provider reads, named as DigitalOcean's CCM names it.
const (
	EnvToken  = "DO_ACCESS_TOKEN"
	EnvURL    = "DO_OVERRIDE_URL"
	EnvRegion = "REGION"
)

// DefaultURL is DigitalOcean's API, used when DO_OVERRIDE_URL is unset.
const DefaultURL = "https://api.digitalocean.com/"

// Config is the provider's configuration.
type Config struct {
	Token  string
	URL    string
	Region string
}

// LoadConfig reads the configuration through lookup (os.LookupEnv in the binary); a missing token or
// region, or a URL without scheme and host, is an error naming the variable. The region is required
// because DigitalOcean's CCM otherwise asks the droplet metadata service, which a sandbox does not have.
func LoadConfig(lookup func(string) (string, bool)) (Config, error) {
	get := func(k string) string {
		v, _ := lookup(k)
		return strings.TrimSpace(v)
	}
	cfg := Config{Token: get(EnvToken), URL: get(EnvURL), Region: get(EnvRegion)}
	if cfg.URL == "" {
		cfg.URL = DefaultURL
	}
	var errs []error
	if cfg.Token == "" {
		errs = append(errs, fmt.Errorf("%s is required", EnvToken))
	}
	if cfg.Region == "" {
		errs = append(errs, fmt.Errorf("%s is required (e.g. sim-1)", EnvRegion))
	}
	if u, err := url.Parse(cfg.URL); err != nil || u.Scheme == "" || u.Host == "" {
		errs = append(errs, fmt.Errorf("%s must be an absolute URL like http://127.0.0.1:8080/, got %q", EnvURL, cfg.URL))
	}
	return cfg, errors.Join(errs...)
}
