package brightbox

import (
	"context"
	"strings"
	"testing"

	brightbox "github.com/brightbox/gobrightbox/v2"
	"github.com/brightbox/gobrightbox/v2/enums/balancingpolicy"
	"github.com/brightbox/gobrightbox/v2/enums/healthchecktype"
	"github.com/brightbox/gobrightbox/v2/enums/listenerprotocol"
	"github.com/brightbox/gobrightbox/v2/enums/proxyprotocol"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"ccm-sandbox/go/internal/providerkit/poll"
	"ccm-sandbox/go/internal/providerkit/providertest"
	"ccm-sandbox/go/internal/simcloudtest"
)

func service(annotations map[string]string, ports ...v1.ServicePort) *v1.Service {
	if len(ports) == 0 {
		ports = []v1.ServicePort{{Port: 80, NodePort: 30080, Protocol: v1.ProtocolTCP}}
	}
	return &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: simcloudtest.UniqueName("web"), Namespace: "default", Annotations: annotations},
		Spec:       v1.ServiceSpec{Type: v1.ServiceTypeLoadBalancer, Ports: ports},
	}
}

// How a Service's annotations and ports become listeners, a health check and firewall ports.
func TestParseService(t *testing.T) {
	local := service(nil)
	local.Spec.ExternalTrafficPolicy, local.Spec.HealthCheckNodePort = v1.ServiceExternalTrafficPolicyLocal, 32000
	for _, tc := range []struct {
		name      string
		svc       *v1.Service
		listeners []brightbox.LoadBalancerListener
		check     brightbox.LoadBalancerHealthcheck
		ports     string
	}{
		{"defaults: HTTP, checked at /healthz on the NodePort", service(nil),
			[]brightbox.LoadBalancerListener{{Protocol: listenerprotocol.Http, In: 80, Out: 30080}},
			brightbox.LoadBalancerHealthcheck{Type: healthchecktype.Http, Port: 30080, Request: "/healthz"}, "30080"},
		{"TCP listeners are checked over TCP", service(map[string]string{AnnotationListenerProtocol: "tcp", AnnotationListenerProxy: "v2", AnnotationListenerIdle: "30000"}),
			[]brightbox.LoadBalancerListener{{Protocol: listenerprotocol.Tcp, In: 80, Out: 30080, Timeout: 30000, ProxyProtocol: proxyprotocol.V2}},
			brightbox.LoadBalancerHealthcheck{Type: healthchecktype.Tcp, Port: 30080, Request: "/"}, "30080"},
		{"the annotated health check", service(map[string]string{
			AnnotationListenerProtocol: "tcp", AnnotationHCProtocol: "http", AnnotationHCRequest: "/ready", AnnotationHCInterval: "1000", AnnotationHCTimeout: "500",
			AnnotationHCHealthyThreshold: "2", AnnotationHCUnhealthy: "3",
		}),
			[]brightbox.LoadBalancerListener{{Protocol: listenerprotocol.Tcp, In: 80, Out: 30080}},
			brightbox.LoadBalancerHealthcheck{Type: healthchecktype.Http, Port: 30080, Request: "/ready", Interval: 1000, Timeout: 500, ThresholdUp: 2, ThresholdDown: 3}, "30080"},
		{"local traffic: kube-proxy's health check", local,
			[]brightbox.LoadBalancerListener{{Protocol: listenerprotocol.Http, In: 80, Out: 30080}},
			brightbox.LoadBalancerHealthcheck{Type: healthchecktype.Http, Port: 32000, Request: "/healthz"}, "30080,32000"},
		{"443 is HTTPS", service(map[string]string{AnnotationSSLDomains: "example.com"}, v1.ServicePort{Port: 80, NodePort: 30080}, v1.ServicePort{Port: 443, NodePort: 30443}),
			[]brightbox.LoadBalancerListener{{Protocol: listenerprotocol.Http, In: 80, Out: 30080}, {Protocol: listenerprotocol.Https, In: 443, Out: 30443}},
			brightbox.LoadBalancerHealthcheck{Type: healthchecktype.Http, Port: 30080, Request: "/healthz"}, "30080,30443"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := parseService(tc.svc)
			if err != nil {
				t.Fatal(err)
			}
			if len(spec.listeners) != len(tc.listeners) || spec.check != tc.check || spec.ports != tc.ports {
				t.Fatalf("listeners %+v check %+v ports %q", spec.listeners, spec.check, spec.ports)
			}
			for i := range tc.listeners {
				if spec.listeners[i] != tc.listeners[i] {
					t.Errorf("listener %d: %+v, want %+v", i, spec.listeners[i], tc.listeners[i])
				}
			}
		})
	}
}

// What Brightbox's CCM refuses is refused, every problem named.
func TestParseServiceRefuses(t *testing.T) {
	udp := service(nil, v1.ServicePort{Port: 53, NodePort: 30053, Protocol: v1.ProtocolUDP})
	sticky := service(nil)
	sticky.Spec.SessionAffinity = v1.ServiceAffinityClientIP
	both := service(map[string]string{AnnotationCloudIP: "cip-abcde"})
	both.Spec.LoadBalancerIP = "203.0.113.7"
	for _, tc := range []struct {
		name string
		svc  *v1.Service
		want []string
	}{
		{"bad values", service(map[string]string{AnnotationPolicy: "random", AnnotationListenerProxy: "v3", AnnotationHCInterval: "-1", AnnotationCloudIP: "lba-x"}),
			[]string{AnnotationPolicy, AnnotationListenerProxy, AnnotationHCInterval, AnnotationCloudIP, "must be one of: least-connections, round-robin, source-address"}},
		{"UDP", udp, []string{"UDP"}},
		{"session affinity", sticky, []string{"ClientIP"}},
		{"SSL over TCP", service(map[string]string{AnnotationListenerProtocol: "tcp", AnnotationSSLDomains: "example.com"}), []string{"tcp"}},
		{"SSL ports without domains", service(map[string]string{AnnotationSSLPorts: "8443"}), []string{AnnotationSSLDomains}},
		{"two cloud IPs", both, []string{"spec.loadBalancerIP"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseService(tc.svc)
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v, want %q named", err, w)
				}
			}
		})
	}
}

// Brightbox's strategy end to end: a cloud IP (the ingress) mapped to a load balancer with the Service's
// listeners and health check on the nodes' servers, a server group of them and a firewall policy opening the
// NodePorts; an update follows the nodes; delete removes all four.
func TestLoadBalancerStrategy(t *testing.T) {
	a, b := createServer(t, simcloudtest.UniqueName("bb-lb")), createServer(t, simcloudtest.UniqueName("bb-lb"))
	lbs, _ := newTestCloud(t).LoadBalancer()
	ctx := context.Background()
	svc := service(map[string]string{AnnotationListenerProtocol: "tcp", AnnotationListenerProxy: "v1", AnnotationPolicy: "round-robin"})
	name := lbs.GetLoadBalancerName(ctx, "c1", svc)
	if name != svc.Name+".default.c1" {
		t.Fatalf("name %q", name)
	}
	nodes := []*v1.Node{providertest.Node("node-a", ProviderID(a.ID))}
	t.Cleanup(func() { _ = lbs.EnsureLoadBalancerDeleted(ctx, "c1", svc) })
	st := ensure(t, lbs.EnsureLoadBalancer, svc, nodes)
	c := api(t)
	cips := simcloudtest.Must(c.CloudIPs(ctx)).Get(t)
	cip := findNamed(cips, name, func(x brightbox.CloudIP) string { return x.Name })
	if cip == nil || cip.LoadBalancer == nil || len(st.Ingress) != 1 || st.Ingress[0].IP != cip.PublicIPv4 {
		t.Fatalf("ingress %+v, cloud IP %+v", st.Ingress, cip)
	}
	lb := simcloudtest.Must(c.LoadBalancer(ctx, cip.LoadBalancer.ID)).Get(t)
	if lb.Name != name || lb.Policy != balancingpolicy.RoundRobin || len(lb.Nodes) != 1 || lb.Nodes[0].ID != a.ID || len(lb.Listeners) != 1 ||
		lb.Listeners[0].ProxyProtocol != proxyprotocol.V1 || lb.Healthcheck.Type != healthchecktype.Tcp {
		t.Fatalf("load balancer %+v", lb)
	}
	group := findNamed(simcloudtest.Must(c.ServerGroups(ctx)).Get(t), name, func(x brightbox.ServerGroup) string { return x.Name })
	policy := findNamed(simcloudtest.Must(c.FirewallPolicies(ctx)).Get(t), name, func(x brightbox.FirewallPolicy) string { return x.Name })
	if group == nil || len(group.Servers) != 1 || policy == nil || policy.ServerGroup == nil || policy.ServerGroup.ID != group.ID ||
		len(policy.Rules) != 1 || policy.Rules[0].DestinationPort != "30080" || policy.Rules[0].Source != ruleSource {
		t.Fatalf("group %+v policy %+v", group, policy)
	}

	// A second node: the load balancer and the group follow; the cloud IP stays.
	if err := lbs.UpdateLoadBalancer(ctx, "c1", svc, append(nodes, providertest.Node(b.Name, ""))); err != nil {
		t.Fatal(err)
	}
	if lb := simcloudtest.Must(c.LoadBalancer(ctx, lb.ID)).Get(t); len(lb.Nodes) != 2 || len(lb.CloudIPs) != 1 || lb.CloudIPs[0].ID != cip.ID {
		t.Fatalf("after update: %+v", lb)
	}
	if g := simcloudtest.Must(c.ServerGroup(ctx, group.ID)).Get(t); len(g.Servers) != 2 {
		t.Fatalf("group after update: %+v", g.Servers)
	}
	if got, exists, err := lbs.GetLoadBalancer(ctx, "c1", svc); err != nil || !exists || got.Ingress[0].IP != cip.PublicIPv4 {
		t.Fatalf("GetLoadBalancer: %+v %v %v", got, exists, err)
	}

	if err := lbs.EnsureLoadBalancerDeleted(ctx, "c1", svc); err != nil {
		t.Fatal(err)
	}
	if _, exists, err := lbs.GetLoadBalancer(ctx, "c1", svc); err != nil || exists {
		t.Fatalf("after delete: %v %v", exists, err)
	}
	for what, err := range map[string]error{"cloud IP": second(c.CloudIP(ctx, cip.ID)), "server group": second(c.ServerGroup(ctx, group.ID)), "firewall policy": second(c.FirewallPolicy(ctx, policy.ID))} {
		if !isNotFound(err) {
			t.Errorf("%s still there: %v", what, err)
		}
	}
}

// ensure calls EnsureLoadBalancer until it stops asking to be called again (the load balancer building).
func ensure(t *testing.T, call func(context.Context, string, *v1.Service, []*v1.Node) (*v1.LoadBalancerStatus, error), svc *v1.Service, nodes []*v1.Node) *v1.LoadBalancerStatus {
	t.Helper()
	var st *v1.LoadBalancerStatus
	poll.Eventually(t, "EnsureLoadBalancer", func() error {
		var err error
		st, err = call(context.Background(), "c1", svc, nodes)
		return err
	})
	return st
}

func second[T any](_ T, err error) error { return err }

func findNamed[T any](list []T, name string, nameOf func(T) string) *T {
	found, _ := byName(list, nil, nameOf, name)
	return found
}

// Which cloud IP a Service gets: the annotation's, the one with spec.loadBalancerIP's address, else its own.
func TestTheServicesCloudIP(t *testing.T) {
	c, ctx := api(t), context.Background()
	given := simcloudtest.Must(c.CreateCloudIP(ctx, brightbox.CloudIPOptions{Name: ptr(simcloudtest.UniqueName("given"))})).Get(t)
	t.Cleanup(func() { _, _ = c.DestroyCloudIP(context.Background(), given.ID) })
	l := &loadBalancers{c: c}
	for _, tc := range []struct {
		name    string
		spec    lbSpec
		want    string // "": a new cloud IP named as the Service's resources
		wantErr string
	}{
		{"by annotation", lbSpec{cloudIP: given.ID}, given.ID, ""},
		{"by address", lbSpec{address: given.PublicIPv4}, given.ID, ""},
		{"an address no cloud IP has", lbSpec{address: "203.0.113.250"}, "", "no cloud IP has the address"},
		{"not an address", lbSpec{address: "x"}, "", "not an IP address"},
		{"its own", lbSpec{}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := simcloudtest.UniqueName("svc") + ".default.c1"
			cip, err := l.ensureCloudIP(ctx, name, tc.spec)
			switch {
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case tc.want != "" && cip.ID != tc.want:
				t.Fatalf("cloud IP %s, want %s", cip.ID, tc.want)
			case tc.want == "":
				t.Cleanup(func() { _, _ = c.DestroyCloudIP(context.Background(), cip.ID) })
				if cip.Name != name {
					t.Fatalf("new cloud IP named %q", cip.Name)
				}
				if again := simcloudtest.Must(l.ensureCloudIP(ctx, name, tc.spec)).Get(t); again.ID != cip.ID {
					t.Fatalf("a second sync allocated %s", again.ID)
				}
			}
		})
	}
}

// A load balancer is updated only when it differs from what the Service asks; zeros are the API's defaults.
func TestNeedsUpdate(t *testing.T) {
	name := "web.default.c1"
	spec := lbSpec{
		listeners: []brightbox.LoadBalancerListener{{Protocol: listenerprotocol.Tcp, In: 80, Out: 30080}},
		check:     brightbox.LoadBalancerHealthcheck{Type: healthchecktype.Tcp, Port: 30080, Request: "/"},
	}
	current := func() *brightbox.LoadBalancer {
		return &brightbox.LoadBalancer{
			Name: name, Policy: balancingpolicy.LeastConnections, Nodes: []brightbox.Server{{ID: "srv-aaaaa"}},
			Listeners:   []brightbox.LoadBalancerListener{{Protocol: listenerprotocol.Tcp, In: 80, Out: 30080, Timeout: 50000}},
			Healthcheck: brightbox.LoadBalancerHealthcheck{Type: healthchecktype.Tcp, Port: 30080, Request: "/", Interval: 5000, Timeout: 5000, ThresholdUp: 3, ThresholdDown: 3},
		}
	}
	for _, tc := range []struct {
		name   string
		change func(*lbSpec, *[]string)
		want   bool
	}{
		{"the same (defaults left to the API)", func(*lbSpec, *[]string) {}, false},
		{"another node", func(_ *lbSpec, s *[]string) { *s = append(*s, "srv-bbbbb") }, true},
		{"another NodePort", func(sp *lbSpec, _ *[]string) {
			sp.listeners = []brightbox.LoadBalancerListener{{Protocol: listenerprotocol.Tcp, In: 80, Out: 30081}}
		}, true},
		{"an idle timeout", func(sp *lbSpec, _ *[]string) {
			sp.listeners = []brightbox.LoadBalancerListener{{Protocol: listenerprotocol.Tcp, In: 80, Out: 30080, Timeout: 30000}}
		}, true},
		{"a policy", func(sp *lbSpec, _ *[]string) { sp.policy = balancingpolicy.RoundRobin }, true},
		{"the default policy named", func(sp *lbSpec, _ *[]string) { sp.policy = balancingpolicy.LeastConnections }, false},
		{"a check interval", func(sp *lbSpec, _ *[]string) { sp.check.Interval = 1000 }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp, servers := spec, []string{"srv-aaaaa"}
			tc.change(&sp, &servers)
			if got := needsUpdate(current(), options(name, sp, servers)); got != tc.want {
				t.Fatalf("needsUpdate = %v", got)
			}
		})
	}
}
