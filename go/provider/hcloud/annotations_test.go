package hcloud

import (
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"ccm-sandbox/go/internal/providerkit"
)

func defaults(t *testing.T) LoadBalancerDefaults {
	t.Helper()
	cfg, err := LoadConfig(providerkit.Map(map[string]string{EnvEndpoint: "http://127.0.0.1:1/hcloud/v1", EnvToken: "t", EnvLBLocation: "fsn1"}))
	if err != nil {
		t.Fatal(err)
	}
	return cfg.LoadBalancer
}

func TestParseAnnotations(t *testing.T) {
	cases := []struct {
		name    string
		in      map[string]string
		check   func(t *testing.T, o lbOptions)
		wantErr []string
	}{
		{name: "none: the configured defaults", check: func(t *testing.T, o lbOptions) {
			hc := o.healthCheck
			if o.location != "fsn1" || o.lbType != "lb11" || o.algorithm != hcloud.LoadBalancerAlgorithmTypeRoundRobin || o.protocol != hcloud.LoadBalancerServiceProtocolTCP ||
				o.proxyProtocol || o.usePrivateIP || o.disablePublicNetwork != nil || !o.ipv6 || !o.privateIngress ||
				hc.protocol != hcloud.LoadBalancerServiceProtocolTCP || hc.port != 0 || hc.interval != 15*time.Second || hc.timeout != 10*time.Second || hc.retries != 3 {
				t.Errorf("%+v", o)
			}
		}},
		{name: "every annotation", in: map[string]string{
			AnnotationName: "web", AnnotationLocation: "nbg1", AnnotationType: "lb21", AnnotationAlgorithmType: "least_connections",
			AnnotationProtocol: "http", AnnotationUsesProxyProtocol: "true", AnnotationHealthCheckProtocol: "http", AnnotationHealthCheckPort: "8080",
			AnnotationHealthCheckInterval: "2s", AnnotationHealthCheckTimeout: "1s", AnnotationHealthCheckRetries: "1", AnnotationHealthCheckHTTPPath: "/healthz",
			AnnotationUsePrivateIP: "true", AnnotationHostname: "web.example.test", AnnotationDisablePublicNetwork: "true", AnnotationIPv6Disabled: "true",
		}, check: func(t *testing.T, o lbOptions) {
			hc := o.healthCheck
			if o.name != "web" || o.location != "nbg1" || o.lbType != "lb21" || o.algorithm != hcloud.LoadBalancerAlgorithmTypeLeastConnections ||
				o.protocol != hcloud.LoadBalancerServiceProtocolHTTP || !o.proxyProtocol || !o.usePrivateIP || o.hostname != "web.example.test" ||
				o.disablePublicNetwork == nil || !*o.disablePublicNetwork || o.ipv6 ||
				hc.protocol != hcloud.LoadBalancerServiceProtocolHTTP || hc.port != 8080 || hc.interval != 2*time.Second || hc.timeout != time.Second || hc.retries != 1 || hc.httpPath != "/healthz" {
				t.Errorf("%+v", o)
			}
		}},
		{name: "the health check follows the service protocol", in: map[string]string{AnnotationProtocol: "http"}, check: func(t *testing.T, o lbOptions) {
			if o.healthCheck.protocol != hcloud.LoadBalancerServiceProtocolHTTP || o.healthCheck.httpPath != "/" {
				t.Errorf("%+v", o.healthCheck)
			}
		}},
		{name: "a network zone", in: map[string]string{AnnotationLocation: "", AnnotationNetworkZone: "eu-central"}, check: func(t *testing.T, o lbOptions) {
			if o.location != "" || o.networkZone != "eu-central" {
				t.Errorf("%+v", o)
			}
		}},
		{name: "invalid values, each named", in: map[string]string{
			AnnotationAlgorithmType: "random", AnnotationProtocol: "udp", AnnotationUsesProxyProtocol: "yes please", AnnotationHealthCheckPort: "0",
			AnnotationHealthCheckInterval: "10ms", AnnotationHealthCheckRetries: "many", AnnotationDisablePublicNetwork: "perhaps",
			AnnotationLocation: "fsn1", AnnotationNetworkZone: "eu-central", AnnotationName: strings.Repeat("x", 64),
		}, wantErr: []string{
			AnnotationAlgorithmType, AnnotationProtocol, AnnotationUsesProxyProtocol, AnnotationHealthCheckPort, AnnotationHealthCheckInterval,
			AnnotationHealthCheckRetries, AnnotationDisablePublicNetwork, AnnotationNetworkZone, AnnotationName,
		}},
		{name: "an http check path must be a path", in: map[string]string{AnnotationHealthCheckProtocol: "http", AnnotationHealthCheckHTTPPath: "healthz"}, wantErr: []string{AnnotationHealthCheckHTTPPath}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parseAnnotations(tc.in, defaults(t))
			if len(tc.wantErr) > 0 {
				if err == nil {
					t.Fatalf("no error: %+v", o)
				}
				for _, s := range tc.wantErr {
					if !strings.Contains(err.Error(), s+"=") {
						t.Errorf("error %q does not name %s", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, o)
		})
	}
}
