package simcloud

import (
	"strconv"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"ccm-sandbox/go/provider/simcloud/client"
)

func TestPlanListenersAndHealthChecks(t *testing.T) {
	local := func(svc *v1.Service) *v1.Service {
		svc.Spec.ExternalTrafficPolicy = v1.ServiceExternalTrafficPolicyLocal
		svc.Spec.HealthCheckNodePort = 32000
		return svc
	}
	udp := func(svc *v1.Service) *v1.Service {
		svc.Spec.Ports[0].Protocol = v1.ProtocolUDP
		return svc
	}
	cases := []struct {
		name      string
		svc       *v1.Service
		protocol  string
		proxy     string
		hc        string // protocol port path
		rulePorts []string
	}{
		{name: "defaults", svc: lbService("a", nil), protocol: "tcp", proxy: "none", hc: "tcp 30080 /", rulePorts: []string{"tcp/30080"}},
		{name: "a UDP port is a udp listener checked by nothing", svc: udp(lbService("u", map[string]string{AnnotationProtocol: "http", AnnotationProxyProtocol: "v1"})), protocol: "udp", proxy: "none", hc: "none 30080 /", rulePorts: []string{"udp/30080"}},
		{name: "a UDP port with Local checks the health check node port", svc: local(udp(lbService("v", nil))), protocol: "udp", proxy: "none", hc: "http 32000 /healthz", rulePorts: []string{"udp/30080", "tcp/32000"}},
		{
			name: "service-wide annotations", svc: lbService("b", map[string]string{AnnotationProtocol: "http", AnnotationProxyProtocol: "v2", AnnotationHealthCheckPort: "31000"}),
			protocol: "http", proxy: "v2", hc: "tcp 31000 /", rulePorts: []string{"tcp/30080", "tcp/31000"},
		},
		{
			name: "per-port override wins", svc: lbService("c", map[string]string{AnnotationProtocol: "http", AnnotationPortPrefix + "80": `{"protocol":"https","health-check-path":"/ok","health-check-protocol":"http"}`}),
			protocol: "https", proxy: "none", hc: "http 30080 /ok", rulePorts: []string{"tcp/30080"},
		},
		{name: "externalTrafficPolicy Local checks the health check node port", svc: local(lbService("d", nil)), protocol: "tcp", proxy: "none", hc: "http 32000 /healthz", rulePorts: []string{"tcp/30080", "tcp/32000"}},
		{name: "an explicit health check wins over Local", svc: local(lbService("e", map[string]string{AnnotationHealthCheckPath: "/x"})), protocol: "tcp", proxy: "none", hc: "tcp 30080 /x", rulePorts: []string{"tcp/30080"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := parseAnnotations(tc.svc.Annotations)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := planLoadBalancer(tc.svc, cfg)
			if err != nil {
				t.Fatal(err)
			}
			l := plan.services[0]
			hc := strings.Join([]string{l.HealthCheck.Protocol, strconv.Itoa(*l.HealthCheck.Port), l.HealthCheck.Path}, " ")
			if l.Protocol != tc.protocol || l.ProxyProtocol != tc.proxy || hc != tc.hc {
				t.Errorf("listener %s %s, health check %q; want %s %s %q", l.Protocol, l.ProxyProtocol, hc, tc.protocol, tc.proxy, tc.hc)
			}
			var ports []string
			for _, r := range plan.rules {
				ports = append(ports, r.Protocol+"/"+*r.Ports)
			}
			if strings.Join(ports, ",") != strings.Join(tc.rulePorts, ",") {
				t.Errorf("firewall rule ports %v, want %v", ports, tc.rulePorts)
			}
		})
	}
}

func TestInvalidAnnotationsAndSourceRanges(t *testing.T) {
	cases := []struct {
		name        string
		annotations map[string]string
		ranges      []string
		want        []string
	}{
		{name: "every problem at once", annotations: map[string]string{AnnotationHealthCheckRetries: "0", AnnotationPreserve: "maybe", AnnotationPortPrefix + "x": "{}"}, want: []string{
			`annotation loadbalancer.simcloud.dev/health-check-retries="0" must be an integer 1..10`,
			`annotation loadbalancer.simcloud.dev/preserve="maybe" must be one of: true, false`,
			`annotation loadbalancer.simcloud.dev/port-x="{}" names no valid port`,
		}},
		{name: "port override with an unknown key", annotations: map[string]string{AnnotationPortPrefix + "80": `{"protocl":"http"}`}, want: []string{`annotation loadbalancer.simcloud.dev/port-80="{\"protocl\":\"http\"}" must be a JSON object`}},
		{name: "override of a port the Service lacks", annotations: map[string]string{AnnotationPortPrefix + "443": `{}`}, want: []string{"annotation loadbalancer.simcloud.dev/port-443 names no port of the Service"}},
		{name: "IPv6 and malformed source ranges", ranges: []string{"::/0", "10.0.0.0/33"}, want: []string{`spec.loadBalancerSourceRanges entry "::/0" must be an IPv4 CIDR`, `spec.loadBalancerSourceRanges entry "10.0.0.0/33" must be an IPv4 CIDR`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			svc := lbService("x", tc.annotations)
			svc.Spec.LoadBalancerSourceRanges = tc.ranges
			cfg, err := parseAnnotations(svc.Annotations)
			if err == nil {
				_, err = planLoadBalancer(svc, cfg)
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestIngressStatus(t *testing.T) {
	lb := &client.LoadBalancer{PublicIPv4: "127.1.0.9", Location: "sim-1", Services: []client.LoadBalancerService{{ProxyProtocol: "v1"}}}
	proxied := ingressStatus(lb, defaultLBConfig())
	if proxied.Ingress[0].IP != "127.1.0.9" || *proxied.Ingress[0].IPMode != v1.LoadBalancerIPModeProxy {
		t.Errorf("with the PROXY protocol: %+v", proxied.Ingress[0])
	}
	cfg := defaultLBConfig()
	cfg.hostnameOnlyIngress = true
	if got := ingressStatus(lb, cfg).Ingress[0]; got.IP != "" || got.Hostname != "127-1-0-9.sim-1.lb.simcloud.dev" {
		t.Errorf("hostname-only: %+v", got)
	}
}

func TestBlockVIPIsTheThirdAddress(t *testing.T) {
	if got := blockVIP("127.2.0.8/29"); got != "127.2.0.10" {
		t.Errorf("blockVIP = %s", got)
	}
}

func TestTLSListenersCarryTheCertificateAndHTTPOnesTheRedirect(t *testing.T) {
	svc := lbService("tls", map[string]string{
		AnnotationProtocol: "http", AnnotationPortPrefix + "443": `{"protocol":"https"}`,
		AnnotationCertificateID: "crt-7", AnnotationRedirectHTTPToHTTPS: "true",
	})
	svc.Spec.Ports = append(svc.Spec.Ports, v1.ServicePort{Name: "https", Port: 443, NodePort: 30443, Protocol: v1.ProtocolTCP})
	cfg, err := parseAnnotations(svc.Annotations)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := planLoadBalancer(svc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	http, https := plan.services[0], plan.services[1]
	if http.Protocol != "http" || http.RedirectHTTPSPort == nil || *http.RedirectHTTPSPort != 443 || http.CertificateID != nil {
		t.Errorf("http listener %+v", http)
	}
	if https.Protocol != "https" || https.CertificateID == nil || *https.CertificateID != "crt-7" || https.RedirectHTTPSPort != nil {
		t.Errorf("https listener %+v", https)
	}
	plain := lbService("plain", map[string]string{AnnotationRedirectHTTPToHTTPS: "true"})
	cfg, _ = parseAnnotations(plain.Annotations)
	if _, err := planLoadBalancer(plain, cfg); err == nil || !strings.Contains(err.Error(), "needs an https listener") {
		t.Errorf("error %v", err)
	}
}
