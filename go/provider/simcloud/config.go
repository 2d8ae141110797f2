package simcloud

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"k8s.io/klog/v2"
	"sigs.k8s.io/yaml"
)

// Environment variables read by the provider; each wins over the cloud-config file's key.
const (
	EnvEndpoint              = "SIMCLOUD_ENDPOINT"
	EnvToken                 = "SIMCLOUD_TOKEN"
	EnvRequestTimeout        = "SIMCLOUD_REQUEST_TIMEOUT"
	EnvNetwork               = "SIMCLOUD_NETWORK"
	EnvRoutesEnabled         = "SIMCLOUD_ROUTES_ENABLED"
	EnvLoadBalancersEnabled  = "SIMCLOUD_LOAD_BALANCERS_ENABLED"
	EnvLoadBalancerStrategy  = "SIMCLOUD_LOAD_BALANCER_STRATEGY"
	strategyLoadBalancer     = "lb"
	strategyIPBlock          = "ip-block"
	defaultRequestTimeoutStr = "30s"
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

// LoadConfig reads the cloud-config file (nil or empty when none), then the environment through getenv.
// Every problem is reported at once, each naming the variable or key to fix.
func LoadConfig(file io.Reader, getenv func(string) string) (Config, error) {
	var fc fileConfig
	if file != nil {
		data, err := io.ReadAll(file)
		if err != nil {
			return Config{}, fmt.Errorf("reading the cloud-config file: %w", err)
		}
		if len(bytes.TrimSpace(data)) > 0 {
			if err := yaml.UnmarshalStrict(data, &fc); err != nil {
				return Config{}, fmt.Errorf("cloud-config file: %w", err)
			}
		}
	}
	if fc.ClusterName != "" {
		// The TypeScript CCM's key; upstream takes the cluster name from its flag.
		klog.Warningf("cloud-config key clusterName=%q is not read by this CCM: the cluster name is --cluster-name", fc.ClusterName)
	}
	p := parser{getenv: getenv}
	cfg := Config{
		Endpoint:             p.str(EnvEndpoint, fc.Endpoint),
		Token:                p.str(EnvToken, fc.Token),
		Network:              p.str(EnvNetwork, fc.Routes.Network),
		LoadBalancerStrategy: p.str(EnvLoadBalancerStrategy, or(fc.LoadBalancer.Strategy, strategyLoadBalancer)),
		RequestTimeout:       p.duration(EnvRequestTimeout, or(fc.RequestTimeout, defaultRequestTimeoutStr)),
		RoutesEnabled:        p.boolean(EnvRoutesEnabled, fc.Routes.Enabled),
		LoadBalancersEnabled: p.boolean(EnvLoadBalancersEnabled, fc.LoadBalancer.Enabled),
	}
	p.validate(cfg)
	if len(p.problems) > 0 {
		return Config{}, fmt.Errorf("invalid simcloud configuration: %s", strings.Join(p.problems, "; "))
	}
	return cfg, nil
}

func or(value, fallback string) string {
	if value == "" {
		return fallback
	}
	return value
}

// parser collects every problem instead of stopping at the first.
type parser struct {
	getenv   func(string) string
	problems []string
}

func (p *parser) str(env, fromFile string) string {
	return strings.TrimSpace(or(p.getenv(env), fromFile))
}

func (p *parser) duration(env, fromFile string) time.Duration {
	raw := p.str(env, fromFile)
	if secs, err := strconv.ParseFloat(raw, 64); err == nil && secs > 0 {
		return time.Duration(secs * float64(time.Second))
	}
	d, err := time.ParseDuration(raw)
	if err != nil || d <= 0 {
		p.problems = append(p.problems, fmt.Sprintf("%s=%q must be a duration like 500ms, 15s or 1m", env, raw))
		return 0
	}
	return d
}

func (p *parser) boolean(env string, fromFile *bool) bool {
	raw := strings.ToLower(strings.TrimSpace(p.getenv(env)))
	switch raw {
	case "true", "1":
		return true
	case "false", "0":
		return false
	case "":
		return fromFile == nil || *fromFile
	}
	p.problems = append(p.problems, fmt.Sprintf("%s=%q must be true or false", env, raw))
	return false
}

func (p *parser) validate(cfg Config) {
	if cfg.Endpoint == "" {
		p.problems = append(p.problems, EnvEndpoint+" is not set: the simcloud API URL, e.g. http://127.0.0.1:4600")
	}
	if cfg.Token == "" {
		p.problems = append(p.problems, EnvToken+" is not set: a simcloud API token")
	} else if strings.ContainsAny(cfg.Token, " \t\r\n") {
		p.problems = append(p.problems, EnvToken+" contains a space or line break")
	}
	if cfg.LoadBalancerStrategy != strategyLoadBalancer && cfg.LoadBalancerStrategy != strategyIPBlock {
		p.problems = append(p.problems, fmt.Sprintf("%s=%q is not a strategy; allowed: lb, ip-block", EnvLoadBalancerStrategy, cfg.LoadBalancerStrategy))
	}
}
