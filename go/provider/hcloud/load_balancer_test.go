package hcloud

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"ccm-sandbox/go/internal/simcloudtest"
)

func lbService(annotations map[string]string) *v1.Service {
	return &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: unique("svc"), Namespace: "default", UID: types.UID(unique("uid")), Annotations: annotations},
		Spec: v1.ServiceSpec{Type: v1.ServiceTypeLoadBalancer, Ports: []v1.ServicePort{
			{Name: "http", Port: 80, NodePort: 30080, Protocol: v1.ProtocolTCP},
			{Name: "alt", Port: 8080, NodePort: 30081, Protocol: v1.ProtocolTCP},
		}},
	}
}

// owned reads the Service's load balancer through the dialect, by the owner label.
func owned(t *testing.T, svc *v1.Service) *hcloud.LoadBalancer {
	t.Helper()
	lbs, err := api().LoadBalancer.AllWithOpts(context.Background(), hcloud.LoadBalancerListOpts{ListOpts: hcloud.ListOpts{LabelSelector: labelServiceUID + "=" + string(svc.UID)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(lbs) > 1 {
		t.Fatalf("%d load balancers for %s", len(lbs), svc.Name)
	}
	if len(lbs) == 0 {
		return nil
	}
	return lbs[0]
}

func targetIDs(lb *hcloud.LoadBalancer) (ids []int64, private []bool) {
	for _, target := range lb.Targets {
		if target.Server != nil && target.Server.Server != nil {
			ids = append(ids, target.Server.Server.ID)
			private = append(private, target.UsePrivateIP)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids, private
}

func TestLoadBalancerLifecycle(t *testing.T) {
	ctx := context.Background()
	network := createNetwork(t, "10.61.0.0/16")
	cloud := newTestCloud(t, map[string]string{EnvNetwork: network.Name})
	lbs, _ := cloud.LoadBalancer()
	a, b := createServer(t, unique("lb-a"), network), createServer(t, unique("lb-b"), network)
	nodes := []*v1.Node{node(a.Name, providerID(a.ID)), node(b.Name, "")}
	svc := lbService(nil)

	status, err := lbs.EnsureLoadBalancer(ctx, "c", svc, nodes)
	if err != nil {
		t.Fatal(err)
	}
	lb := owned(t, svc)
	if lb == nil {
		t.Fatal("no load balancer carries the service-uid label")
	}
	if lb.Name != lbs.GetLoadBalancerName(ctx, "c", svc) || lb.LoadBalancerType.Name != "lb11" || lb.Location.Name != "sim-1" || !lb.PublicNet.Enabled {
		t.Errorf("load balancer %+v", lb)
	}
	// As Hetzner's CCM writes it by default: the public IPv4, the public IPv6, then the private address.
	var ingress []string
	for _, i := range status.Ingress {
		ingress = append(ingress, i.IP)
	}
	if want := []string{lb.PublicNet.IPv4.IP.String(), lb.PublicNet.IPv6.IP.String(), lb.PrivateNet[0].IP.String()}; strings.Join(ingress, " ") != strings.Join(want, " ") || !strings.HasPrefix(want[1], "2001:db8:") {
		t.Errorf("ingress %v, want %v", ingress, want)
	}
	if !attachedTo(lb, network.ID) {
		t.Errorf("not attached to %s: %+v", network.Name, lb.PrivateNet)
	}
	wantServices := []hcloud.LoadBalancerService{tcpService(80, 30080, 30080), tcpService(8080, 30081, 30081)}
	if plan := planServices(lb.Services, wantServices); len(plan.add)+len(plan.update)+len(plan.remove) > 0 {
		t.Errorf("services %+v differ from %+v: %+v", lb.Services, wantServices, plan)
	}
	if ids, _ := targetIDs(lb); len(ids) != 2 || ids[0] != min(a.ID, b.ID) || ids[1] != max(a.ID, b.ID) {
		t.Errorf("targets %v, want servers %d and %d", ids, a.ID, b.ID)
	}
	if _, exists, err := lbs.GetLoadBalancer(ctx, "c", svc); !exists || err != nil {
		t.Errorf("GetLoadBalancer: exists %v, %v", exists, err)
	}

	if err := lbs.UpdateLoadBalancer(ctx, "c", svc, nodes[:1]); err != nil {
		t.Fatal(err)
	}
	if ids, _ := targetIDs(owned(t, svc)); len(ids) != 1 || ids[0] != a.ID {
		t.Errorf("after UpdateLoadBalancer targets %v, want [%d]", ids, a.ID)
	}

	if err := lbs.EnsureLoadBalancerDeleted(ctx, "c", svc); err != nil {
		t.Fatal(err)
	}
	if owned(t, svc) != nil {
		t.Error("the load balancer is still there")
	}
	if err := lbs.EnsureLoadBalancerDeleted(ctx, "c", svc); err != nil {
		t.Errorf("deleting again: %v", err)
	}
	if _, exists, err := lbs.GetLoadBalancer(ctx, "c", svc); exists || err != nil {
		t.Errorf("GetLoadBalancer after delete: exists %v, %v", exists, err)
	}
}

func TestLoadBalancerAnnotationsReachTheCloud(t *testing.T) {
	ctx := context.Background()
	network := createNetwork(t, "10.62.0.0/16")
	cloud := newTestCloud(t, map[string]string{EnvNetwork: network.Name})
	lbs, _ := cloud.LoadBalancer()
	server := createServer(t, unique("lb-ann"), network)
	nodes := []*v1.Node{node(server.Name, providerID(server.ID))}
	svc := lbService(nil)
	if _, err := lbs.EnsureLoadBalancer(ctx, "c", svc, nodes); err != nil {
		t.Fatal(err)
	}
	svc.Annotations = map[string]string{
		AnnotationName: unique("named"), AnnotationType: "lb21", AnnotationAlgorithmType: "least_connections", AnnotationUsesProxyProtocol: "true",
		AnnotationHealthCheckProtocol: "http", AnnotationHealthCheckHTTPPath: "/healthz", AnnotationHealthCheckInterval: "3s", AnnotationHealthCheckTimeout: "2s",
		AnnotationHealthCheckRetries: "1", AnnotationUsePrivateIP: "true", AnnotationDisablePublicNetwork: "true",
		AnnotationIPv4RDNS: "v4.example.test", AnnotationIPv6RDNS: "v6.example.test",
	}
	status, err := lbs.EnsureLoadBalancer(ctx, "c", svc, nodes)
	if err != nil {
		t.Fatal(err)
	}
	lb := owned(t, svc)
	if lb.Name != svc.Annotations[AnnotationName] || lb.LoadBalancerType.Name != "lb21" || lb.Algorithm.Type != hcloud.LoadBalancerAlgorithmTypeLeastConnections || lb.PublicNet.Enabled {
		t.Errorf("name %q type %v algorithm %v public %v", lb.Name, lb.LoadBalancerType, lb.Algorithm, lb.PublicNet.Enabled)
	}
	for _, s := range lb.Services {
		hc := s.HealthCheck
		if !s.Proxyprotocol || hc.Protocol != hcloud.LoadBalancerServiceProtocolHTTP || hc.HTTP == nil || hc.HTTP.Path != "/healthz" ||
			hc.Interval != 3*time.Second || hc.Timeout != 2*time.Second || hc.Retries != 1 {
			t.Errorf("service %d: %+v, health check %+v", s.ListenPort, s, hc)
		}
	}
	// Hetzner's CCM sends each address with its name to change_dns_ptr, the IPv6 one included.
	if lb.PublicNet.IPv4.DNSPtr != "v4.example.test" || lb.PublicNet.IPv6.DNSPtr != "v6.example.test" {
		t.Errorf("reverse DNS %q / %q", lb.PublicNet.IPv4.DNSPtr, lb.PublicNet.IPv6.DNSPtr)
	}
	if _, private := targetIDs(lb); len(private) != 1 || !private[0] {
		t.Errorf("targets do not use the private IP: %+v", lb.Targets)
	}
	// With the public interface off, the ingress is the private address; the proxy protocol makes it Proxy mode.
	if len(status.Ingress) != 1 || status.Ingress[0].IP != lb.PrivateNet[0].IP.String() || *status.Ingress[0].IPMode != v1.LoadBalancerIPModeProxy {
		t.Errorf("ingress %+v, private %+v", status.Ingress, lb.PrivateNet)
	}
	svc.Annotations[AnnotationHostname] = "lb.example.test"
	if status, err = lbs.EnsureLoadBalancer(ctx, "c", svc, nodes); err != nil || status.Ingress[0].Hostname != "lb.example.test" {
		t.Errorf("hostname: %+v, %v", status, err)
	}
	if err := lbs.EnsureLoadBalancerDeleted(ctx, "c", svc); err != nil {
		t.Fatal(err)
	}
}

func TestInvalidAnnotationsCreateNothing(t *testing.T) {
	lbs, _ := newTestCloud(t, nil).LoadBalancer()
	svc := lbService(map[string]string{AnnotationAlgorithmType: "random", AnnotationHealthCheckRetries: "lots"})
	_, err := lbs.EnsureLoadBalancer(context.Background(), "c", svc, nil)
	if err == nil || !strings.Contains(err.Error(), AnnotationAlgorithmType) || !strings.Contains(err.Error(), AnnotationHealthCheckRetries) {
		t.Fatalf("error %v does not name both annotations", err)
	}
	if owned(t, svc) != nil {
		t.Error("a load balancer was created")
	}
}

func TestPrivateTargetsNeedTheNetwork(t *testing.T) {
	lbs, _ := newTestCloud(t, nil).LoadBalancer()
	svc := lbService(map[string]string{AnnotationUsePrivateIP: "true"})
	defer func() { _ = lbs.EnsureLoadBalancerDeleted(context.Background(), "c", svc) }()
	if _, err := lbs.EnsureLoadBalancer(context.Background(), "c", svc, nil); err == nil || !strings.Contains(err.Error(), EnvNetwork) {
		t.Fatalf("error %v does not say to set %s", err, EnvNetwork)
	}
}

func TestANamedLoadBalancerOfAnotherServiceIsNotAdopted(t *testing.T) {
	ctx := context.Background()
	cloud := newTestCloud(t, nil)
	lbs, _ := cloud.LoadBalancer()
	name := unique("same-name")
	mine, theirs := lbService(map[string]string{AnnotationName: name}), lbService(map[string]string{AnnotationName: name})
	if _, err := lbs.EnsureLoadBalancer(ctx, "a", mine, nil); err != nil {
		t.Fatal(err)
	}
	made := owned(t, mine)
	if _, err := lbs.EnsureLoadBalancer(ctx, "b", theirs, nil); err == nil || !strings.Contains(err.Error(), "uniqueness_error") {
		t.Fatalf("the second Service of the same name: %v, want the name refused", err)
	}
	if err := lbs.EnsureLoadBalancerDeleted(ctx, "b", theirs); err != nil {
		t.Fatal(err)
	}
	if after := owned(t, mine); after == nil || after.ID != made.ID || after.Labels[labelServiceUID] != string(mine.UID) {
		t.Fatalf("the first Service's load balancer %d after the second one's sync and delete: %+v", made.ID, after)
	}
	if err := lbs.EnsureLoadBalancerDeleted(ctx, "a", mine); err != nil {
		t.Fatal(err)
	}
}

func TestHTTPSServicesTerminateTLSWithTheNamedCertificateAndRedirectHTTP(t *testing.T) {
	ctx := context.Background()
	lbs, _ := newTestCloud(t, nil).LoadBalancer()
	pair := simcloudtest.SelfSignedPEM(t, "web.test")
	cert, _, err := api().Certificate.Create(ctx, hcloud.CertificateCreateOpts{Name: unique("web"), Certificate: pair.Cert, PrivateKey: pair.Key})
	if err != nil {
		t.Fatal(err)
	}
	svc := lbService(map[string]string{AnnotationProtocol: "https", AnnotationHTTPCertificates: cert.Name, AnnotationHTTPRedirectHTTP: "true"})
	svc.Spec.Ports = svc.Spec.Ports[1:]
	defer func() { _ = lbs.EnsureLoadBalancerDeleted(ctx, "c", svc) }()
	if _, err := lbs.EnsureLoadBalancer(ctx, "c", svc, nil); err != nil {
		t.Fatal(err)
	}
	s := owned(t, svc).Services[0]
	if s.Protocol != hcloud.LoadBalancerServiceProtocolHTTPS || len(s.HTTP.Certificates) != 1 || s.HTTP.Certificates[0].ID != cert.ID || !s.HTTP.RedirectHTTP ||
		s.HealthCheck.Protocol != hcloud.LoadBalancerServiceProtocolTCP {
		t.Errorf("service %+v, http %+v, health check %+v", s, s.HTTP, s.HealthCheck)
	}
	// By id too; an unknown certificate fails the sync naming it.
	svc.Annotations[AnnotationHTTPCertificates] = strconv.FormatInt(cert.ID, 10)
	if _, err := lbs.EnsureLoadBalancer(ctx, "c", svc, nil); err != nil {
		t.Fatal(err)
	}
	svc.Annotations[AnnotationHTTPCertificates] = "no-such-certificate"
	if _, err := lbs.EnsureLoadBalancer(ctx, "c", svc, nil); err == nil || !strings.Contains(err.Error(), `"no-such-certificate"`) {
		t.Errorf("error %v does not name the certificate", err)
	}
}

func TestTLSAnnotationsNeedEachOther(t *testing.T) {
	for _, tc := range []struct {
		annotations map[string]string
		want        string
	}{
		{map[string]string{AnnotationProtocol: "https"}, "needs " + AnnotationHTTPCertificates},
		{map[string]string{AnnotationHTTPCertificates: "a"}, AnnotationHTTPCertificates + " needs " + AnnotationProtocol + " https"},
		{map[string]string{AnnotationProtocol: "http", AnnotationHTTPRedirectHTTP: "true"}, AnnotationHTTPRedirectHTTP + " needs"},
	} {
		if _, err := parseAnnotations(tc.annotations, LoadBalancerDefaults{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one containing %q", tc.annotations, err, tc.want)
		}
	}
}
