package simcloud

import (
	"strings"
	"testing"
	"time"

	"ccm-sandbox/go/internal/providerkit"
	"ccm-sandbox/go/internal/providerkit/providertest"
)

func TestLoadConfig(t *testing.T) {
	base := map[string]string{EnvEndpoint: "http://127.0.0.1:4600", EnvToken: "tok-0123456789abcdef"}
	cases := []struct {
		name    string
		file    string
		env     providerkit.Lookup
		want    Config
		wantErr string
	}{
		{
			name: "defaults", env: providerkit.Map(base),
			want: Config{Endpoint: "http://127.0.0.1:4600", Token: "tok-0123456789abcdef", RequestTimeout: 30 * time.Second, RoutesEnabled: true, LoadBalancersEnabled: true, LoadBalancerStrategy: "lb"},
		},
		{
			name: "environment", env: providertest.Env(base, map[string]string{EnvNetwork: "pods", EnvRoutesEnabled: "false", EnvLoadBalancersEnabled: "0", EnvRequestTimeout: "1.5"}),
			want: Config{Endpoint: "http://127.0.0.1:4600", Token: "tok-0123456789abcdef", RequestTimeout: 1500 * time.Millisecond, Network: "pods", LoadBalancerStrategy: "lb"},
		},
		{
			name: "file, with the environment winning", file: "endpoint: http://file:1\ntoken: file-token\nrequestTimeout: 5s\nroutes: {network: from-file}\nloadBalancer: {enabled: false}\n",
			env:  providerkit.Map(map[string]string{EnvToken: "env-token"}),
			want: Config{Endpoint: "http://file:1", Token: "env-token", RequestTimeout: 5 * time.Second, Network: "from-file", RoutesEnabled: true, LoadBalancerStrategy: "lb"},
		},
		{name: "missing endpoint and token", env: providerkit.Map(nil), wantErr: "SIMCLOUD_ENDPOINT is not set: the simcloud API URL, e.g. http://127.0.0.1:4600; SIMCLOUD_TOKEN is not set"},
		{
			name: "ip-block strategy", env: providertest.Env(base, map[string]string{EnvLoadBalancerStrategy: "ip-block"}),
			want: Config{Endpoint: "http://127.0.0.1:4600", Token: "tok-0123456789abcdef", RequestTimeout: 30 * time.Second, RoutesEnabled: true, LoadBalancersEnabled: true, LoadBalancerStrategy: "ip-block"},
		},
		{name: "unknown strategy", env: providertest.Env(base, map[string]string{EnvLoadBalancerStrategy: "nlb"}), wantErr: `SIMCLOUD_LOAD_BALANCER_STRATEGY="nlb" must be one of: lb, ip-block`},
		{name: "bad boolean and duration", env: providertest.Env(base, map[string]string{EnvRoutesEnabled: "yes", EnvRequestTimeout: "soon"}), wantErr: `SIMCLOUD_REQUEST_TIMEOUT="soon" must be a duration like 500ms, 15s or 1m; SIMCLOUD_ROUTES_ENABLED="yes" must be true or false`},
		{name: "unknown file key", file: "endpont: x\n", env: providerkit.Map(base), wantErr: `cloud-config file: error unmarshaling JSON: while decoding JSON: json: unknown field "endpont"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := LoadConfig(strings.NewReader(tc.file), tc.env)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("config %+v, want %+v", got, tc.want)
			}
		})
	}
}
