package hcloud

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

// Environment variables read by the provider: the names and meanings of Hetzner's own
// cloud-controller-manager, so one environment configures either CCM.
const (
	EnvEndpoint                = "HCLOUD_ENDPOINT"
	EnvToken                   = "HCLOUD_TOKEN"
	EnvNetwork                 = "HCLOUD_NETWORK"
	EnvNetworkRoutesEnabled    = "HCLOUD_NETWORK_ROUTES_ENABLED"
	EnvAddressFamily           = "HCLOUD_INSTANCES_ADDRESS_FAMILY"
	EnvLBEnabled               = "HCLOUD_LOAD_BALANCERS_ENABLED"
	EnvLBLocation              = "HCLOUD_LOAD_BALANCERS_LOCATION"
	EnvLBNetworkZone           = "HCLOUD_LOAD_BALANCERS_NETWORK_ZONE"
	EnvLBType                  = "HCLOUD_LOAD_BALANCERS_TYPE"
	EnvLBAlgorithmType         = "HCLOUD_LOAD_BALANCERS_ALGORITHM_TYPE"
	EnvLBUsePrivateIP          = "HCLOUD_LOAD_BALANCERS_USE_PRIVATE_IP"
	EnvLBDisablePublicNetwork  = "HCLOUD_LOAD_BALANCERS_DISABLE_PUBLIC_NETWORK"
	EnvLBDisablePrivateIngress = "HCLOUD_LOAD_BALANCERS_DISABLE_PRIVATE_INGRESS"
	EnvLBDisableIPv6           = "HCLOUD_LOAD_BALANCERS_DISABLE_IPV6"
	EnvLBUsesProxyProtocol     = "HCLOUD_LOAD_BALANCERS_USES_PROXYPROTOCOL"
	EnvLBHealthCheckInterval   = "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_INTERVAL"
	EnvLBHealthCheckTimeout    = "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_TIMEOUT"
	EnvLBHealthCheckRetries    = "HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_RETRIES"
	defaultLoadBalancerType    = "lb11"
	addressFamilyIPv4          = "ipv4"
	addressFamilyIPv6          = "ipv6"
	addressFamilyDualStack     = "dualstack"
	defaultHealthCheckInterval = 15 * time.Second
	defaultHealthCheckTimeout  = 10 * time.Second
	defaultHealthCheckRetries  = 3
)

// Config is the provider's configuration.
type Config struct {
	// Endpoint is the base URL of the API, e.g. http://127.0.0.1:4600/hcloud/v1.
	Endpoint string
	// Token is the API token.
	Token string
	// Network (id or name) gives nodes their InternalIP and holds the pod routes; empty means neither.
	Network string
	// RoutesEnabled offers Routes (when Network is set).
	RoutesEnabled bool
	// AddressFamily is ipv4, ipv6 or dualstack: which public addresses become ExternalIPs.
	AddressFamily string
	// LoadBalancer holds the defaults of every load balancer; annotations override them per Service.
	LoadBalancer LoadBalancerDefaults
}

// LoadBalancerDefaults are the HCLOUD_LOAD_BALANCERS_* settings.
type LoadBalancerDefaults struct {
	Enabled               bool
	Location              string
	NetworkZone           string
	Type                  string
	Algorithm             hcloud.LoadBalancerAlgorithmType
	UsePrivateIP          bool
	DisablePublicNetwork  *bool
	PrivateIngressEnabled bool
	IPv6Enabled           bool
	ProxyProtocol         bool
	HealthCheckInterval   time.Duration
	HealthCheckTimeout    time.Duration
	HealthCheckRetries    int
}

// LoadConfig reads the environment through lookup (os.LookupEnv in production). Every problem is
// reported at once, each naming the variable to fix.
func LoadConfig(lookup func(string) (string, bool)) (Config, error) {
	p := envParser{lookup: lookup}
	cfg := Config{
		Endpoint:      p.str(EnvEndpoint),
		Token:         p.str(EnvToken),
		Network:       p.str(EnvNetwork),
		AddressFamily: strings.ToLower(or(p.str(EnvAddressFamily), addressFamilyIPv4)),
		LoadBalancer:  p.loadBalancerDefaults(),
	}
	cfg.RoutesEnabled = cfg.Network != "" && p.boolean(EnvNetworkRoutesEnabled, true)
	p.validate(cfg)
	if len(p.problems) > 0 {
		return Config{}, fmt.Errorf("invalid hcloud configuration: %s", strings.Join(p.problems, "; "))
	}
	return cfg, nil
}

func (p *envParser) loadBalancerDefaults() LoadBalancerDefaults {
	return LoadBalancerDefaults{
		Enabled:               p.boolean(EnvLBEnabled, true),
		Location:              p.str(EnvLBLocation),
		NetworkZone:           p.str(EnvLBNetworkZone),
		Type:                  or(p.str(EnvLBType), defaultLoadBalancerType),
		Algorithm:             p.algorithm(EnvLBAlgorithmType),
		UsePrivateIP:          p.boolean(EnvLBUsePrivateIP, false),
		DisablePublicNetwork:  p.optionalBool(EnvLBDisablePublicNetwork),
		PrivateIngressEnabled: !p.boolean(EnvLBDisablePrivateIngress, false),
		IPv6Enabled:           !p.boolean(EnvLBDisableIPv6, false),
		ProxyProtocol:         p.boolean(EnvLBUsesProxyProtocol, false),
		HealthCheckInterval:   p.duration(EnvLBHealthCheckInterval, defaultHealthCheckInterval),
		HealthCheckTimeout:    p.duration(EnvLBHealthCheckTimeout, defaultHealthCheckTimeout),
		HealthCheckRetries:    p.integer(EnvLBHealthCheckRetries, defaultHealthCheckRetries),
	}
}

func or(value, fallback string) string {
	if value == "" {
		return fallback
	}
	return value
}

// envParser collects every problem instead of stopping at the first.
type envParser struct {
	lookup   func(string) (string, bool)
	problems []string
}

func (p *envParser) problem(format string, args ...any) {
	p.problems = append(p.problems, fmt.Sprintf(format, args...))
}

func (p *envParser) str(env string) string {
	v, _ := p.lookup(env)
	return strings.TrimSpace(v)
}

func (p *envParser) optionalBool(env string) *bool {
	raw := p.str(env)
	if raw == "" {
		return nil
	}
	b, err := strconv.ParseBool(raw)
	if err != nil {
		p.problem("%s=%q must be true or false", env, raw)
		return nil
	}
	return &b
}

func (p *envParser) boolean(env string, fallback bool) bool {
	if b := p.optionalBool(env); b != nil {
		return *b
	}
	return fallback
}

func (p *envParser) duration(env string, fallback time.Duration) time.Duration {
	raw := p.str(env)
	if raw == "" {
		return fallback
	}
	d, err := time.ParseDuration(raw)
	if err != nil || d <= 0 {
		p.problem("%s=%q must be a duration like 5s or 1m", env, raw)
	}
	return d
}

func (p *envParser) integer(env string, fallback int) int {
	raw := p.str(env)
	if raw == "" {
		return fallback
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 0 {
		p.problem("%s=%q must be a whole number", env, raw)
	}
	return n
}

func (p *envParser) algorithm(env string) hcloud.LoadBalancerAlgorithmType {
	raw := strings.ToLower(p.str(env))
	if raw == "" {
		return hcloud.LoadBalancerAlgorithmTypeRoundRobin
	}
	alg, err := parseAlgorithm(raw)
	if err != nil {
		p.problem("%s=%q: %v", env, raw, err)
	}
	return alg
}

func parseAlgorithm(raw string) (hcloud.LoadBalancerAlgorithmType, error) {
	switch alg := hcloud.LoadBalancerAlgorithmType(raw); alg {
	case hcloud.LoadBalancerAlgorithmTypeRoundRobin, hcloud.LoadBalancerAlgorithmTypeLeastConnections:
		return alg, nil
	}
	return "", fmt.Errorf("allowed: %s, %s", hcloud.LoadBalancerAlgorithmTypeRoundRobin, hcloud.LoadBalancerAlgorithmTypeLeastConnections)
}

func (p *envParser) validate(cfg Config) {
	// No default endpoint: this provider must never reach a real cloud by accident.
	if u, err := url.Parse(cfg.Endpoint); cfg.Endpoint == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.problem("%s=%q must be the API's base URL, e.g. http://127.0.0.1:4600/hcloud/v1", EnvEndpoint, cfg.Endpoint)
	}
	if cfg.Token == "" {
		p.problem("%s is not set: an API token", EnvToken)
	} else if strings.ContainsAny(cfg.Token, " \t\r\n") {
		p.problem("%s contains a space or line break", EnvToken)
	}
	switch cfg.AddressFamily {
	case addressFamilyIPv4, addressFamilyIPv6, addressFamilyDualStack:
	default:
		p.problem("%s=%q: allowed: ipv4, ipv6, dualstack", EnvAddressFamily, cfg.AddressFamily)
	}
	if cfg.LoadBalancer.Location != "" && cfg.LoadBalancer.NetworkZone != "" {
		p.problem("%s and %s are both set: set only one", EnvLBLocation, EnvLBNetworkZone)
	}
}
