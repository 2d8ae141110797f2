package simcloud

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"k8s.io/klog/v2"
	"sigs.k8s.io/yaml"

	"ccm-sandbox/go/internal/providerkit"
)

// Environment variables read by the provider; each wins over the cloud-config file's key.
const (
	EnvEndpoint             = "SIMCLOUD_ENDPOINT"
	EnvToken                = "SIMCLOUD_TOKEN"
	EnvRequestTimeout       = "SIMCLOUD_REQUEST_TIMEOUT"
	EnvNetwork              = "SIMCLOUD_NETWORK"
	EnvRoutesEnabled        = "SIMCLOUD_ROUTES_ENABLED"
	EnvLoadBalancersEnabled = "SIMCLOUD_LOAD_BALANCERS_ENABLED"
	EnvLoadBalancerStrategy = "SIMCLOUD_LOAD_BALANCER_STRATEGY"
	strategyLoadBalancer    = "lb"
	strategyIPBlock         = "ip-block"
	defaultRequestTimeout   = 30 * time.Second
)

// Config is the provider's configuration.
type Config struct {
	// Endpoint is the base URL of the simcloud API.
	Endpoint string
	// Token is the simcloud API token.
	Token string
	// RequestTimeout bounds one HTTP exchange.
	RequestTimeout time.Duration
	// Network (id or name) holds the pod routes; empty means no Routes capability.
	Network string
	// RoutesEnabled offers Routes (when Network is set).
	RoutesEnabled bool
	// LoadBalancersEnabled offers LoadBalancer.
	LoadBalancersEnabled bool
	// LoadBalancerStrategy is "lb" (load balancer + server group + firewall policy per Service) or "ip-block"
	// (an IP block per Service gives the VIP; the load balancer targets the servers).
	LoadBalancerStrategy string
}

// fileConfig is the cloud-config file: JSON or YAML with the TypeScript CCM's keys. Unknown keys are errors.
type fileConfig struct {
	Endpoint       string `json:"endpoint"`
	Token          string `json:"token"`
	RequestTimeout string `json:"requestTimeout"`
	ClusterName    string `json:"clusterName"`
	Routes         struct {
		Network string `json:"network"`
		Enabled *bool  `json:"enabled"`
	} `json:"routes"`
	LoadBalancer struct {
		Enabled  *bool  `json:"enabled"`
		Strategy string `json:"strategy"`
	} `json:"loadBalancer"`
}

// LoadConfig reads the cloud-config file (nil or empty when none), then the environment through env, which
// wins key by key. Every problem is reported at once, each naming the variable to fix (also for a value
// from the file: the variable is what the TypeScript CCM's reference documents).
func LoadConfig(file io.Reader, env providerkit.Lookup) (_ Config, err error) {
	defer providerkit.Wrap(&err, ProviderName, "LoadConfig")
	fc, err := readFile(file)
	if err != nil {
		return Config{}, err
	}
	if fc.ClusterName != "" {
		// The TypeScript CCM's key; upstream takes the cluster name from its flag.
		klog.Warningf("cloud-config key clusterName=%q is not read by this CCM: the cluster name is --cluster-name", fc.ClusterName)
	}
	r := providerkit.Env(providerkit.FirstOf(env, providerkit.Map(fc.byVariable())))
	cfg := Config{
		Endpoint:             r.Required(EnvEndpoint, "the simcloud API URL, e.g. http://127.0.0.1:4600"),
		Token:                r.Token(EnvToken, "a simcloud API token"),
		Network:              r.String(EnvNetwork, ""),
		LoadBalancerStrategy: providerkit.OneOf(r, EnvLoadBalancerStrategy, strategyLoadBalancer, strategyLoadBalancer, strategyIPBlock),
		RequestTimeout:       providerkit.Parse(r, EnvRequestTimeout, defaultRequestTimeout, parseTimeout),
		RoutesEnabled:        r.Bool(EnvRoutesEnabled, true),
		LoadBalancersEnabled: r.Bool(EnvLoadBalancersEnabled, true),
	}
	if err := r.Err("invalid configuration"); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

func readFile(file io.Reader) (fileConfig, error) {
	var fc fileConfig
	if file == nil {
		return fc, nil
	}
	data, err := io.ReadAll(file)
	if err != nil {
		return fc, fmt.Errorf("reading the cloud-config file: %w", err)
	}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := yaml.UnmarshalStrict(data, &fc); err != nil {
			return fc, fmt.Errorf("cloud-config file: %w", err)
		}
	}
	return fc, nil
}

// byVariable is the file's values under the names of the variables that override them.
func (fc fileConfig) byVariable() map[string]string {
	values := map[string]string{
		EnvEndpoint: fc.Endpoint, EnvToken: fc.Token, EnvRequestTimeout: fc.RequestTimeout,
		EnvNetwork: fc.Routes.Network, EnvLoadBalancerStrategy: fc.LoadBalancer.Strategy,
	}
	for env, b := range map[string]*bool{EnvRoutesEnabled: fc.Routes.Enabled, EnvLoadBalancersEnabled: fc.LoadBalancer.Enabled} {
		if b != nil {
			values[env] = strconv.FormatBool(*b)
		}
	}
	return values
}

// parseTimeout reads a Go duration or, as the TypeScript CCM does, a number of seconds.
func parseTimeout(raw string) (time.Duration, error) {
	if secs, err := strconv.ParseFloat(raw, 64); err == nil && secs > 0 {
		return time.Duration(secs * float64(time.Second)), nil
	}
	if d, err := time.ParseDuration(raw); err == nil && d > 0 {
		return d, nil
	}
	return 0, errors.New("must be a duration like 500ms, 15s or 1m")
}
