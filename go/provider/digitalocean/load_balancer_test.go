package digitalocean

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	"github.com/digitalocean/godo"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"ccm-sandbox/go/internal/providerkit/poll"
	"ccm-sandbox/go/internal/simcloudtest"
)

func service(annotations map[string]string) *v1.Service {
	return &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: types.UID(simcloudtest.UniqueName("uid")), Annotations: annotations},
		Spec:       v1.ServiceSpec{Type: v1.ServiceTypeLoadBalancer, Ports: []v1.ServicePort{{Port: 80, NodePort: 30080, Protocol: v1.ProtocolTCP}}},
	}
}

// testLBs is the provider's load balancers with a fake cluster holding svc, where they write annotations.
func testLBs(t *testing.T, svc *v1.Service) (*loadBalancers, *fake.Clientset) {
	lbs, _ := newTestCloud(t).LoadBalancer()
	l := lbs.(*loadBalancers)
	kube := fake.NewClientset(svc.DeepCopy())
	l.kube = kube
	t.Cleanup(func() { _ = l.EnsureLoadBalancerDeleted(context.Background(), "", svc) })
	return l, kube
}

// ensureActive calls EnsureLoadBalancer until the load balancer is active and returns its status.
func ensureActive(t *testing.T, l *loadBalancers, svc *v1.Service, nodes []*v1.Node) *v1.LoadBalancerStatus {
	t.Helper()
	var st *v1.LoadBalancerStatus
	poll.Eventually(t, "EnsureLoadBalancer once active", func() (err error) {
		st, err = l.EnsureLoadBalancer(context.Background(), "", svc, nodes)
		return err
	})
	return st
}

// annotationsIn is the Service's annotations as the cluster has them.
func annotationsIn(t *testing.T, kube *fake.Clientset, svc *v1.Service) map[string]string {
	t.Helper()
	got, err := kube.CoreV1().Services(svc.Namespace).Get(context.Background(), svc.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return got.Annotations
}

func lbOf(t *testing.T, id string) *godo.LoadBalancer {
	t.Helper()
	lb, _, err := api(t).LoadBalancers.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return lb
}

func TestEnsureLoadBalancerWaitsForActiveThenReportsTheVIPWithTheAnnotationsApplied(t *testing.T) {
	d := createDroplet(t, simcloudtest.UniqueName("do-lb-node"))
	svc := service(map[string]string{
		AnnProxyProtocol: "true", AnnAlgorithm: "least_connections", AnnStickySessionsType: "cookies", AnnStickySessionsCookie: "s", AnnSizeUnit: "2",
	})
	l, kube := testLBs(t, svc)
	ctx := context.Background()
	nodes := []*v1.Node{{Spec: v1.NodeSpec{ProviderID: ProviderID(d.ID)}}}
	_, err := l.EnsureLoadBalancer(ctx, "", svc, nodes)
	if err == nil || !strings.Contains(err.Error(), "not yet active") {
		t.Fatalf("first Ensure: %v, want not yet active", err)
	}
	st := ensureActive(t, l, svc, nodes)
	if len(st.Ingress) != 1 || st.Ingress[0].IP == "" {
		t.Fatalf("status: %+v", st)
	}
	ann := annotationsIn(t, kube, svc)
	lb := lbOf(t, ann[AnnLoadBalancerID])
	// DigitalOcean's CCM's defaults: REGIONAL_NETWORK, IPV4 with IPv4-only nodes, each port to the same port on
	// the nodes, checked on kube-proxy's health port; and the type written on the Service.
	if lb.Type != TypeRegionalNetwork || lb.NetworkStack != StackIPv4 || ann[AnnType] != TypeRegionalNetwork || lb.IP != st.Ingress[0].IP {
		t.Errorf("type %s stack %s annotated %s ip %s", lb.Type, lb.NetworkStack, ann[AnnType], lb.IP)
	}
	if r := lb.ForwardingRules; len(r) != 1 || r[0].EntryPort != 80 || r[0].TargetPort != 80 || r[0].EntryProtocol != "tcp" {
		t.Errorf("rules %+v", r)
	}
	if hc := lb.HealthCheck; hc.Protocol != "http" || hc.Port != KubeProxyHealthPort || hc.Path != "/healthz" {
		t.Errorf("health check %+v", hc)
	}
	if !lb.EnableProxyProtocol || lb.Algorithm != "least_connections" || lb.StickySessions.CookieName != "s" || lb.SizeUnit != 2 || len(lb.DropletIDs) != 1 || lb.DropletIDs[0] != d.ID {
		t.Errorf("settings: %+v %+v", lb, lb.StickySessions)
	}
	if err := l.UpdateLoadBalancer(ctx, "", svc, nil); err != nil {
		t.Fatal(err)
	}
	if err := l.EnsureLoadBalancerDeleted(ctx, "", svc); err != nil {
		t.Fatal(err)
	}
	if _, exists, err := l.GetLoadBalancer(ctx, "", svc); err != nil || exists {
		t.Fatalf("after delete: exists %v, %v", exists, err)
	}
	if err := l.UpdateLoadBalancer(ctx, "", svc, nil); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("Update without a load balancer: %v", err)
	}
}

// DigitalOcean's CCM writes the type its load balancer has into the Service and builds every update from it,
// so a Service whose type annotation says otherwise keeps the load balancer it has; and for REGIONAL it sends
// DUALSTACK. A view that misreported the type broke every update of DigitalOcean's own CCM with a 422.
func TestEveryUpdateIsBuiltFromTheTypeTheLoadBalancerHas(t *testing.T) {
	svc := service(nil)
	l, kube := testLBs(t, svc)
	ensureActive(t, l, svc, nil)
	id := annotationsIn(t, kube, svc)[AnnLoadBalancerID]
	changed := service(map[string]string{AnnType: TypeRegional})
	changed.UID = svc.UID
	ensureActive(t, l, changed, nil)
	if got := annotationsIn(t, kube, svc); got[AnnType] != TypeRegionalNetwork || got[AnnLoadBalancerID] != id {
		t.Errorf("annotations %v", got)
	}
	if lb := lbOf(t, id); lb.Type != TypeRegionalNetwork || lb.NetworkStack != StackIPv4 {
		t.Errorf("type %s stack %s", lb.Type, lb.NetworkStack)
	}
}

// A REGIONAL load balancer is DUALSTACK unless told otherwise, as DigitalOcean's CCM makes it, and its IPv6
// address is in the status beside its IPv4 (the CCM writes both).
func TestARegionalLoadBalancerIsDualStackWithItsIPv6InTheStatus(t *testing.T) {
	svc := service(map[string]string{AnnType: TypeRegional})
	l, kube := testLBs(t, svc)
	st := ensureActive(t, l, svc, nil)
	lb := lbOf(t, annotationsIn(t, kube, svc)[AnnLoadBalancerID])
	if lb.Type != TypeRegional || lb.NetworkStack != StackDualstack || lb.ForwardingRules[0].TargetPort != 30080 {
		t.Errorf("type %s stack %s rules %+v", lb.Type, lb.NetworkStack, lb.ForwardingRules)
	}
	if len(st.Ingress) != 2 || st.Ingress[0].IP != lb.IP || st.Ingress[1].IP != lb.IPv6 {
		t.Fatalf("status %+v, load balancer %s %s", st, lb.IP, lb.IPv6)
	}
	if ip, err := netip.ParseAddr(lb.IPv6); err != nil || !netip.MustParsePrefix("2001:db8::/32").Contains(ip) {
		t.Errorf("ipv6 %q", lb.IPv6)
	}
}

func TestTheNetworkStackFollowsTheNodesForARegionalNetworkLoadBalancer(t *testing.T) {
	node := func(addresses ...string) *v1.Node {
		n := &v1.Node{}
		for _, a := range addresses {
			n.Status.Addresses = append(n.Status.Addresses, v1.NodeAddress{Type: v1.NodeExternalIP, Address: a})
		}
		return n
	}
	dual, v4 := node("127.0.0.1", "2001:db8:1::1"), node("127.0.0.2")
	cases := []struct {
		name, lbType, asked string
		nodes               []*v1.Node
		want, err           string
	}{
		{"regional", TypeRegional, "", []*v1.Node{v4}, StackDualstack, ""},
		{"network, IPv4 nodes", TypeRegionalNetwork, "", []*v1.Node{dual, v4}, StackIPv4, ""},
		{"network, dual-stack nodes", TypeRegionalNetwork, "", []*v1.Node{dual, dual}, StackDualstack, ""},
		{"network, asked IPV4", TypeRegionalNetwork, StackIPv4, []*v1.Node{dual}, StackIPv4, ""},
		{"network, asked DUALSTACK without IPv6", TypeRegionalNetwork, StackDualstack, []*v1.Node{dual, v4}, "", "1 nodes have no IPv6"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := networkStack(lbOptions{lbType: tc.lbType, networkStack: tc.asked}, tc.nodes)
			if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("networkStack = %q, %v; want %q, %q", got, err, tc.want, tc.err)
			}
		})
	}
}

func TestTheHealthCheckIsKubeProxysUnlessOverridden(t *testing.T) {
	local := service(nil)
	local.Spec.HealthCheckNodePort = 32000
	overridden := service(map[string]string{AnnOverrideHealthCheck: "", AnnHealthCheckPath: "/ready"})
	tcp := service(map[string]string{AnnOverrideHealthCheck: "true"})
	cases := []struct {
		name string
		svc  *v1.Service
		want healthOptions
	}{
		{"default", service(map[string]string{AnnHealthCheckProtocol: "tcp", AnnHealthCheckPath: "/ignored"}), healthOptions{protocol: "http", path: "/healthz", port: KubeProxyHealthPort}},
		{"externalTrafficPolicy Local", local, healthOptions{protocol: "http", path: "/healthz", port: 32000}},
		{"override with a path", overridden, healthOptions{protocol: "http", path: "/ready", port: 30080}},
		{"override alone", tcp, healthOptions{protocol: "tcp", port: 30080}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parseOptions(tc.svc)
			if err != nil {
				t.Fatal(err)
			}
			h := o.health
			if h.protocol != tc.want.protocol || h.path != tc.want.path || h.port != tc.want.port {
				t.Errorf("health %+v, want %+v", h, tc.want)
			}
		})
	}
}

func TestABadAnnotationIsAnErrorNamingIt(t *testing.T) {
	lbs, _ := newTestCloud(t).LoadBalancer()
	for _, ann := range []map[string]string{{AnnHealthCheckInterval: "1"}, {AnnType: "GLOBAL"}, {AnnNetworkStack: "IPV6"}} {
		_, err := lbs.EnsureLoadBalancer(context.Background(), "", service(ann), nil)
		for key := range ann {
			if err == nil || !strings.Contains(err.Error(), key) {
				t.Errorf("%v: err = %v", ann, err)
			}
		}
	}
}

func TestACertificateTerminatesTLSOnItsPortsAndHTTPIsRedirected(t *testing.T) {
	pair := simcloudtest.SelfSignedPEM(t, "web.test")
	cert, _, err := api(t).Certificates.Create(context.Background(), &godo.CertificateRequest{
		Name: simcloudtest.UniqueName("web"), Type: "custom", LeafCertificate: pair.Cert, PrivateKey: pair.Key,
	})
	if err != nil {
		t.Fatal(err)
	}
	svc := service(map[string]string{AnnType: TypeRegional, AnnProtocol: "http", AnnCertificateID: cert.ID, AnnRedirectHTTPToHTTPS: "true"})
	svc.Spec.Ports = append(svc.Spec.Ports, v1.ServicePort{Port: 443, NodePort: 30443, Protocol: v1.ProtocolTCP})
	l, kube := testLBs(t, svc)
	ensureActive(t, l, svc, nil)
	lb := lbOf(t, annotationsIn(t, kube, svc)[AnnLoadBalancerID])
	want := []godo.ForwardingRule{
		{EntryProtocol: "http", EntryPort: 80, TargetProtocol: "http", TargetPort: 30080},
		{EntryProtocol: "https", EntryPort: 443, TargetProtocol: "http", TargetPort: 30443, CertificateID: cert.ID},
	}
	if len(lb.ForwardingRules) != 2 || lb.ForwardingRules[0] != want[0] || lb.ForwardingRules[1] != want[1] || !lb.RedirectHttpToHttps {
		t.Errorf("rules %+v redirect %v, want %+v and a redirect", lb.ForwardingRules, lb.RedirectHttpToHttps, want)
	}
}

func TestTLSAnnotationsThatCannotServeAreRefusedBeforeAnyCall(t *testing.T) {
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		want        string
	}{
		{"passthrough type", map[string]string{AnnCertificateID: "c"}, "cannot terminate TLS"},
		{"ports without certificate", map[string]string{AnnType: TypeRegional, AnnTLSPorts: "443"}, AnnTLSPorts + " needs " + AnnCertificateID},
		{"bad port", map[string]string{AnnType: TypeRegional, AnnCertificateID: "c", AnnTLSPorts: "443,x"}, "comma-separated port numbers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := parseOptions(service(tc.annotations)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
