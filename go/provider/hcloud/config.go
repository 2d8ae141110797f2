package hcloud

import (
	"math"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"ccm-sandbox/go/internal/providerkit"
)

// Environment variables read by the provider: the names and meanings of Hetzner's own
// cloud-controller-manager, so one environment configures either CCM.
const (
	EnvEndpoint                = "HCLOUD_ENDPOINT"
	EnvToken                   = "HCLOUD_TOKEN"
	EnvNetwork                 = "HCLOUD_NETWORK"
	EnvNetworkRoutesEnabled    = "HCLOUD_NETWORK_ROUTES_ENABLED"
	EnvAddressFamily           = "HCLOUD_INSTANCES_ADDRESS_FAMILY"
	EnvZoneLabelEnabled        = "HCLOUD_INSTANCES_ZONE_LABEL_ENABLED"
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
	// ZoneLabelEnabled gives Nodes a topology.kubernetes.io/zone label (see zoneOf).
	ZoneLabelEnabled bool
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
func LoadConfig(lookup providerkit.Lookup) (_ Config, err error) {
	defer providerkit.Wrap(&err, ProviderName, "LoadConfig")
	env := providerkit.Env(lookup)
	cfg := Config{
		// No default endpoint: this provider must never reach a real cloud by accident.
		Endpoint:         env.URL(EnvEndpoint, "", "http://127.0.0.1:4600/hcloud/v1"),
		Token:            env.Token(EnvToken, "an API token"),
		Network:          env.String(EnvNetwork, ""),
		AddressFamily:    providerkit.OneOf(env, EnvAddressFamily, addressFamilyIPv4, addressFamilyIPv4, addressFamilyIPv6, addressFamilyDualStack),
		ZoneLabelEnabled: env.Bool(EnvZoneLabelEnabled, true),
		LoadBalancer:     loadBalancerDefaults(env),
	}
	cfg.RoutesEnabled = cfg.Network != "" && env.Bool(EnvNetworkRoutesEnabled, true)
	if cfg.LoadBalancer.Location != "" && cfg.LoadBalancer.NetworkZone != "" {
		env.Problemf("%s and %s are both set: set only one", EnvLBLocation, EnvLBNetworkZone)
	}
	if err := env.Err("invalid configuration"); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

func loadBalancerDefaults(env *providerkit.Reader) LoadBalancerDefaults {
	return LoadBalancerDefaults{
		Enabled:               env.Bool(EnvLBEnabled, true),
		Location:              env.String(EnvLBLocation, ""),
		NetworkZone:           env.String(EnvLBNetworkZone, ""),
		Type:                  env.String(EnvLBType, defaultLoadBalancerType),
		Algorithm:             providerkit.OneOf(env, EnvLBAlgorithmType, hcloud.LoadBalancerAlgorithmTypeRoundRobin, algorithms...),
		UsePrivateIP:          env.Bool(EnvLBUsePrivateIP, false),
		DisablePublicNetwork:  env.OptionalBool(EnvLBDisablePublicNetwork, nil),
		PrivateIngressEnabled: !env.Bool(EnvLBDisablePrivateIngress, false),
		IPv6Enabled:           !env.Bool(EnvLBDisableIPv6, false),
		ProxyProtocol:         env.Bool(EnvLBUsesProxyProtocol, false),
		HealthCheckInterval:   env.Duration(EnvLBHealthCheckInterval, defaultHealthCheckInterval, 0),
		HealthCheckTimeout:    env.Duration(EnvLBHealthCheckTimeout, defaultHealthCheckTimeout, 0),
		HealthCheckRetries:    env.Int(EnvLBHealthCheckRetries, defaultHealthCheckRetries, 0, math.MaxInt),
	}
}

// algorithms are the load balancer algorithms Hetzner offers.
var algorithms = []hcloud.LoadBalancerAlgorithmType{hcloud.LoadBalancerAlgorithmTypeRoundRobin, hcloud.LoadBalancerAlgorithmTypeLeastConnections}
