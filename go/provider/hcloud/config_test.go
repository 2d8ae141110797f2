package hcloud

import (
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"ccm-sandbox/go/internal/providerkit"
	"ccm-sandbox/go/internal/providerkit/providertest"
)

func TestLoadConfig(t *testing.T) {
	base := map[string]string{EnvEndpoint: "http://127.0.0.1:4600/hcloud/v1", EnvToken: "secret"}
	cases := []struct {
		name    string
		vars    providerkit.Lookup
		check   func(t *testing.T, c Config)
		wantErr []string
	}{
		{name: "defaults", vars: providerkit.Map(base), check: func(t *testing.T, c Config) {
			lb := c.LoadBalancer
			if c.RoutesEnabled || c.AddressFamily != "ipv4" || !lb.Enabled || lb.Type != "lb11" || lb.Algorithm != hcloud.LoadBalancerAlgorithmTypeRoundRobin ||
				lb.UsePrivateIP || lb.DisablePublicNetwork != nil || !lb.IPv6Enabled || !lb.PrivateIngressEnabled ||
				lb.HealthCheckInterval != 15*time.Second || lb.HealthCheckTimeout != 10*time.Second || lb.HealthCheckRetries != 3 {
				t.Errorf("defaults: %+v", c)
			}
		}},
		{name: "a network turns routes on", vars: providertest.Env(base, map[string]string{EnvNetwork: "k8s"}), check: func(t *testing.T, c Config) {
			if !c.RoutesEnabled || c.Network != "k8s" {
				t.Errorf("%+v", c)
			}
		}},
		{name: "routes can be turned off", vars: providertest.Env(base, map[string]string{EnvNetwork: "k8s", EnvNetworkRoutesEnabled: "false"}), check: func(t *testing.T, c Config) {
			if c.RoutesEnabled {
				t.Errorf("%+v", c)
			}
		}},
		{name: "load balancer defaults", vars: providertest.Env(base, map[string]string{
			EnvLBLocation: "fsn1", EnvLBType: "lb21", EnvLBAlgorithmType: "least_connections", EnvLBUsePrivateIP: "true",
			EnvLBDisablePublicNetwork: "true", EnvLBHealthCheckInterval: "3s", EnvLBHealthCheckRetries: "1",
		}), check: func(t *testing.T, c Config) {
			lb := c.LoadBalancer
			if lb.Location != "fsn1" || lb.Type != "lb21" || lb.Algorithm != hcloud.LoadBalancerAlgorithmTypeLeastConnections || !lb.UsePrivateIP ||
				lb.DisablePublicNetwork == nil || !*lb.DisablePublicNetwork || lb.HealthCheckInterval != 3*time.Second || lb.HealthCheckRetries != 1 {
				t.Errorf("%+v", lb)
			}
		}},
		{name: "nothing set", vars: providerkit.Map(nil), wantErr: []string{EnvEndpoint, EnvToken}},
		{name: "bad values are all reported", vars: providertest.Env(base, map[string]string{
			EnvLBEnabled: "maybe", EnvLBAlgorithmType: "random", EnvAddressFamily: "ipv5", EnvLBHealthCheckTimeout: "soon",
			EnvLBLocation: "fsn1", EnvLBNetworkZone: "eu-central",
		}), wantErr: []string{EnvLBEnabled, EnvLBAlgorithmType, EnvAddressFamily, EnvLBHealthCheckTimeout, EnvLBNetworkZone}},
		{name: "endpoint must be a URL", vars: providertest.Env(base, map[string]string{EnvEndpoint: "127.0.0.1:4600"}), wantErr: []string{EnvEndpoint}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := LoadConfig(tc.vars)
			if len(tc.wantErr) > 0 {
				if err == nil {
					t.Fatalf("no error; config %+v", cfg)
				}
				for _, s := range tc.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not name %s", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, cfg)
		})
	}
}
