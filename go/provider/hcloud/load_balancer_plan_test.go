package hcloud

import (
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func service(annotations map[string]string, ports ...v1.ServicePort) *v1.Service {
	return &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "0b7e-41c2", Annotations: annotations},
		Spec:       v1.ServiceSpec{Type: v1.ServiceTypeLoadBalancer, Ports: ports},
	}
}

func tcpService(listen, dest int, hcPort int) hcloud.LoadBalancerService {
	return hcloud.LoadBalancerService{
		Protocol: hcloud.LoadBalancerServiceProtocolTCP, ListenPort: listen, DestinationPort: dest,
		HealthCheck: hcloud.LoadBalancerServiceHealthCheck{Protocol: hcloud.LoadBalancerServiceProtocolTCP, Port: hcPort, Interval: 15 * time.Second, Timeout: 10 * time.Second, Retries: 3},
	}
}

// local is svc under externalTrafficPolicy Local with the health check node port the API server gave it.
func local(svc *v1.Service, healthCheckNodePort int32) *v1.Service {
	svc.Spec.ExternalTrafficPolicy, svc.Spec.HealthCheckNodePort = v1.ServiceExternalTrafficPolicyLocal, healthCheckNodePort
	return svc
}

func withCheck(s hcloud.LoadBalancerService, protocol hcloud.LoadBalancerServiceProtocol, port int, path string) hcloud.LoadBalancerService {
	s.HealthCheck.Protocol, s.HealthCheck.Port, s.HealthCheck.HTTP = protocol, port, &hcloud.LoadBalancerServiceHealthCheckHTTP{Path: path}
	return s
}

func TestWantedServices(t *testing.T) {
	d := defaults(t)
	cases := []struct {
		name    string
		svc     *v1.Service
		want    []hcloud.LoadBalancerService
		wantErr bool
	}{
		{name: "one service per port, to its node port", svc: service(nil, v1.ServicePort{Port: 80, NodePort: 30080}, v1.ServicePort{Port: 443, NodePort: 30443, Protocol: v1.ProtocolTCP}),
			want: []hcloud.LoadBalancerService{tcpService(80, 30080, 30080), tcpService(443, 30443, 30443)}},
		{name: "annotations shape every service", svc: service(map[string]string{
			AnnotationUsesProxyProtocol: "true", AnnotationHealthCheckProtocol: "http", AnnotationHealthCheckHTTPPath: "/healthz", AnnotationHealthCheckPort: "31000", AnnotationHealthCheckRetries: "1",
		}, v1.ServicePort{Port: 80, NodePort: 30080}), want: []hcloud.LoadBalancerService{{
			Protocol: hcloud.LoadBalancerServiceProtocolTCP, ListenPort: 80, DestinationPort: 30080, Proxyprotocol: true,
			HealthCheck: hcloud.LoadBalancerServiceHealthCheck{Protocol: hcloud.LoadBalancerServiceProtocolHTTP, Port: 31000, Interval: 15 * time.Second, Timeout: 10 * time.Second, Retries: 1,
				HTTP: &hcloud.LoadBalancerServiceHealthCheckHTTP{Path: "/healthz"}},
		}}},
		{name: "policy Local checks kube-proxy's healthCheckNodePort over http", svc: local(service(map[string]string{AnnotationHealthCheckRetries: "3"}, v1.ServicePort{Port: 80, NodePort: 30080}), 32000),
			want: []hcloud.LoadBalancerService{withCheck(tcpService(80, 30080, 0), hcloud.LoadBalancerServiceProtocolHTTP, 32000, "/healthz")}},
		{name: "under policy Local an annotated check port stays", svc: local(service(map[string]string{AnnotationHealthCheckPort: "31000"}, v1.ServicePort{Port: 80, NodePort: 30080}), 32000),
			want: []hcloud.LoadBalancerService{tcpService(80, 30080, 31000)}},
		{name: "UDP is refused", svc: service(nil, v1.ServicePort{Port: 53, NodePort: 30053, Protocol: v1.ProtocolUDP}), wantErr: true},
		{name: "a port without a node port is refused", svc: service(nil, v1.ServicePort{Port: 80}), wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parseAnnotations(tc.svc.Annotations, d)
			if err != nil {
				t.Fatal(err)
			}
			got, err := wantedServices(tc.svc, o)
			if (err != nil) != tc.wantErr || (!tc.wantErr && !reflect.DeepEqual(got, tc.want)) {
				t.Fatalf("got %+v, %v; want %+v (error %v)", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestPlanServices(t *testing.T) {
	a, b, c := tcpService(80, 30080, 30080), tcpService(443, 30443, 30443), tcpService(8080, 31080, 31080)
	bMoved := tcpService(443, 30444, 30444)
	cases := []struct {
		name           string
		existing, want []hcloud.LoadBalancerService
		plan           servicePlan
	}{
		{name: "nothing there", want: []hcloud.LoadBalancerService{a, b}, plan: servicePlan{add: []hcloud.LoadBalancerService{a, b}}},
		{name: "in sync", existing: []hcloud.LoadBalancerService{b, a}, want: []hcloud.LoadBalancerService{a, b}, plan: servicePlan{}},
		{name: "a changed node port is an update", existing: []hcloud.LoadBalancerService{a, b}, want: []hcloud.LoadBalancerService{a, bMoved}, plan: servicePlan{update: []hcloud.LoadBalancerService{bMoved}}},
		{name: "a removed port is deleted", existing: []hcloud.LoadBalancerService{c, a, b}, want: []hcloud.LoadBalancerService{a}, plan: servicePlan{remove: []int{443, 8080}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := planServices(tc.existing, tc.want); !reflect.DeepEqual(got, tc.plan) {
				t.Fatalf("got %+v, want %+v", got, tc.plan)
			}
		})
	}
}

func serverTarget(id int64, private bool) hcloud.LoadBalancerTarget {
	return hcloud.LoadBalancerTarget{Type: hcloud.LoadBalancerTargetTypeServer, Server: &hcloud.LoadBalancerTargetServer{Server: &hcloud.Server{ID: id}}, UsePrivateIP: private}
}

func TestPlanTargets(t *testing.T) {
	selector := hcloud.LoadBalancerTarget{Type: hcloud.LoadBalancerTargetTypeLabelSelector, LabelSelector: &hcloud.LoadBalancerTargetLabelSelector{Selector: "role=web"}}
	cases := []struct {
		name     string
		existing []hcloud.LoadBalancerTarget
		want     []int64
		private  bool
		plan     targetPlan
	}{
		{name: "nothing there", want: []int64{1, 2}, plan: targetPlan{add: []int64{1, 2}}},
		{name: "in sync, other target kinds left alone", existing: []hcloud.LoadBalancerTarget{serverTarget(2, false), selector, serverTarget(1, false)}, want: []int64{1, 2}, plan: targetPlan{}},
		{name: "a gone node's server is removed", existing: []hcloud.LoadBalancerTarget{serverTarget(1, false), serverTarget(3, false), serverTarget(2, false)}, want: []int64{1}, plan: targetPlan{remove: []int64{2, 3}}},
		{name: "switching to private IPs re-adds", existing: []hcloud.LoadBalancerTarget{serverTarget(1, false)}, want: []int64{1}, private: true, plan: targetPlan{add: []int64{1}, remove: []int64{1}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := planTargets(tc.existing, tc.want, tc.private); !reflect.DeepEqual(got, tc.plan) {
				t.Fatalf("got %+v, want %+v", got, tc.plan)
			}
		})
	}
}

func TestLBChanges(t *testing.T) {
	d := defaults(t)
	svc := service(nil)
	network := &hcloud.Network{ID: 7, Name: "k8s"}
	inSync := func() *hcloud.LoadBalancer {
		return &hcloud.LoadBalancer{
			Name: "a0b7e41c2", Labels: map[string]string{labelServiceUID: "0b7e-41c2"}, LoadBalancerType: &hcloud.LoadBalancerType{Name: "lb11"},
			Algorithm: hcloud.LoadBalancerAlgorithm{Type: hcloud.LoadBalancerAlgorithmTypeRoundRobin},
			PublicNet: hcloud.LoadBalancerPublicNet{Enabled: true,
				IPv4: hcloud.LoadBalancerPublicNetIPv4{IP: net.ParseIP("127.1.0.5"), DNSPtr: "lb.example.test"},
				IPv6: hcloud.LoadBalancerPublicNetIPv6{IP: net.ParseIP("2001:db8:2::5"), DNSPtr: "static.2001-db8-2--5.clients.sim"}},
			PrivateNet: []hcloud.LoadBalancerPrivateNet{{Network: network, IP: net.ParseIP("127.10.0.9")}},
		}
	}
	cases := []struct {
		name        string
		annotations map[string]string
		lb          func() *hcloud.LoadBalancer
		network     *hcloud.Network
		want        []string
	}{
		{name: "in sync", lb: inSync, network: network},
		{name: "everything differs", annotations: map[string]string{AnnotationName: "web", AnnotationType: "lb21", AnnotationAlgorithmType: "least_connections", AnnotationDisablePublicNetwork: "true"},
			lb: func() *hcloud.LoadBalancer { lb := inSync(); lb.PrivateNet = nil; return lb }, network: network,
			want: []string{"name and labels", "type lb21", "algorithm least_connections", "disable the public interface", "attach to network k8s"}},
		{name: "an adopted load balancer gets the owner label", lb: func() *hcloud.LoadBalancer { lb := inSync(); lb.Labels = nil; return lb }, network: network, want: []string{"name and labels"}},
		{name: "public interface back on", annotations: map[string]string{AnnotationDisablePublicNetwork: "false"},
			lb: func() *hcloud.LoadBalancer { lb := inSync(); lb.PublicNet.Enabled = false; return lb }, network: network, want: []string{"enable the public interface"}},
		{name: "no network configured: no attachment", lb: func() *hcloud.LoadBalancer { lb := inSync(); lb.PrivateNet = nil; return lb }},
		// Hetzner's CCM sends the address to change_dns_ptr when its rdns annotation differs; the persona must take
		// the IPv6 (test/simulator/hcloud-ipv6.test.ts, go/contract/hcloud).
		{name: "reverse DNS: only a differing annotation changes it", annotations: map[string]string{AnnotationIPv4RDNS: "lb.example.test", AnnotationIPv6RDNS: "v6.example.test"},
			lb: inSync, network: network, want: []string{"IPv6 reverse DNS v6.example.test"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := svc.DeepCopy()
			s.Annotations = tc.annotations
			o, err := parseAnnotations(s.Annotations, d)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range lbChanges(tc.lb(), s, o, tc.network) {
				got = append(got, c.what)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestIngressStatus(t *testing.T) {
	lb := &hcloud.LoadBalancer{
		PublicNet: hcloud.LoadBalancerPublicNet{Enabled: true,
			IPv4: hcloud.LoadBalancerPublicNetIPv4{IP: net.ParseIP("127.1.0.5")}, IPv6: hcloud.LoadBalancerPublicNetIPv6{IP: net.ParseIP("2001:db8::5")}},
		PrivateNet: []hcloud.LoadBalancerPrivateNet{{Network: &hcloud.Network{ID: 7}, IP: net.ParseIP("127.10.0.9")}},
	}
	private := *lb
	private.PublicNet.Enabled = false
	vip, proxy := v1.LoadBalancerIPModeVIP, v1.LoadBalancerIPModeProxy
	ing := func(mode *v1.LoadBalancerIPMode, ips ...string) []v1.LoadBalancerIngress {
		var out []v1.LoadBalancerIngress
		for _, ip := range ips {
			out = append(out, v1.LoadBalancerIngress{IP: ip, IPMode: mode})
		}
		return out
	}
	cases := []struct {
		name        string
		lb          *hcloud.LoadBalancer
		annotations map[string]string
		want        []v1.LoadBalancerIngress
	}{
		{name: "public v4, v6, then private", lb: lb, want: ing(&vip, "127.1.0.5", "2001:db8::5", "127.10.0.9")},
		{name: "IPv6 disabled, private ingress disabled", lb: lb, annotations: map[string]string{AnnotationIPv6Disabled: "true", AnnotationDisablePrivateIngress: "true"}, want: ing(&vip, "127.1.0.5")},
		{name: "public network disabled", lb: &private, want: ing(&vip, "127.10.0.9")},
		{name: "proxy protocol: IP mode Proxy", lb: lb, annotations: map[string]string{AnnotationUsesProxyProtocol: "true", AnnotationIPv6Disabled: "true", AnnotationDisablePrivateIngress: "true"}, want: ing(&proxy, "127.1.0.5")},
		{name: "a hostname replaces the addresses", lb: lb, annotations: map[string]string{AnnotationHostname: "lb.example.test"}, want: []v1.LoadBalancerIngress{{Hostname: "lb.example.test"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parseAnnotations(tc.annotations, defaults(t))
			if err != nil {
				t.Fatal(err)
			}
			got, err := ingressStatus(tc.lb, o)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Ingress, tc.want) {
				t.Fatalf("got %+v, want %+v", got.Ingress, tc.want)
			}
		})
	}
	// Hetzner's CCM writes a missing IPv6 as "<nil>", which the API server refuses; here it is an error naming the switches.
	noV6 := *lb
	noV6.PublicNet.IPv6.IP = nil
	o, err := parseAnnotations(nil, defaults(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingressStatus(&noV6, o); err == nil || !strings.Contains(err.Error(), EnvLBDisableIPv6) {
		t.Fatalf("a load balancer without IPv6: err %v, want one naming %s", err, EnvLBDisableIPv6)
	}
	if o, err = parseAnnotations(map[string]string{AnnotationIPv6Disabled: "true"}, defaults(t)); err != nil {
		t.Fatal(err)
	}
	if got, err := ingressStatus(&noV6, o); err != nil || len(got.Ingress) != 2 {
		t.Fatalf("IPv6 disabled: %+v, %v; want the IPv4 and the private address", got, err)
	}
}
