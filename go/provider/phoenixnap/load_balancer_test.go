package phoenixnap

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"ccm-sandbox/go/internal/providerkit"
	"ccm-sandbox/go/internal/simcloudtest"
	"ccm-sandbox/go/provider/simcloud/client"
)

func service(annotations map[string]string) *v1.Service {
	return &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: simcloudtest.UniqueName("web"), Namespace: "default", UID: types.UID(simcloudtest.UniqueName("uid")), Annotations: annotations},
		Spec:       v1.ServiceSpec{Type: v1.ServiceTypeLoadBalancer, Ports: []v1.ServicePort{{Port: 80, NodePort: 30080, Protocol: v1.ProtocolTCP}}},
	}
}

func simClient(t *testing.T) *client.Client {
	return simcloudtest.Must(client.New(sim.URL, sim.Token)).Get(t)
}

// The IP-block strategy: a tagged /29 through the IP API, the ingress its third address, a simcloud load
// balancer on it with the annotated settings targeting the nodes; an update moves the targets; delete removes both.
func TestIPBlockStrategy(t *testing.T) {
	a, b := createServer(t, simcloudtest.UniqueName("pnap-lb")), createServer(t, simcloudtest.UniqueName("pnap-lb"))
	lbs, _ := newTestCloud(t).LoadBalancer()
	ctx := context.Background()
	svc := service(map[string]string{AnnotationProxyProtocol: "v1", AnnotationHCProtocol: "http", AnnotationHCPath: "/healthz", AnnotationHCInterval: "1", AnnotationHCRetries: "1"})
	nodes := []*v1.Node{{ObjectMeta: metav1.ObjectMeta{Name: a.Hostname}}}
	t.Cleanup(func() { _ = lbs.EnsureLoadBalancerDeleted(ctx, "c1", svc) })
	st, err := lbs.EnsureLoadBalancer(ctx, "c1", svc, nodes)
	if err != nil {
		t.Fatal(err)
	}
	blocks, _, err := api(t).IP.IPBlocksApi.IpBlocksGet(ctx).Tag([]string{"usage.cloud-provider-phoenixnap-auto", "cluster.c1", "serviceName." + svc.Name}).Execute()
	if err != nil || len(blocks) != 1 || blocks[0].CidrBlockSize != "/29" || blocks[0].GetAssignedResourceType() != "load-balancer" {
		t.Fatalf("blocks: %v %+v", err, blocks)
	}
	prefix := netip.MustParsePrefix(blocks[0].Cidr)
	third := prefix.Addr().Next().Next().String()
	if len(st.Ingress) != 1 || st.Ingress[0].IP != third {
		t.Fatalf("ingress %+v, want %s (the third address of %s)", st.Ingress, third, blocks[0].Cidr)
	}
	lbsOf, _, err := simClient(t).ListLoadBalancers(ctx, client.ListOpts{Name: lbs.GetLoadBalancerName(ctx, "c1", svc)})
	if err != nil || len(lbsOf) != 1 {
		t.Fatalf("simcloud load balancers: %v %+v", err, lbsOf)
	}
	got := lbsOf[0]
	s := got.Services[0]
	if s.ListenPort != 80 || s.DestinationPort != 30080 || s.ProxyProtocol != "v1" || s.HealthCheck.Protocol != "http" || s.HealthCheck.Path != "/healthz" || len(got.Targets) != 1 {
		t.Fatalf("load balancer %+v", got)
	}
	if err := lbs.UpdateLoadBalancer(ctx, "c1", svc, append(nodes, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: b.Hostname}})); err != nil {
		t.Fatal(err)
	}
	if again, _ := simClient(t).GetLoadBalancer(ctx, got.ID); len(again.Targets) != 2 {
		t.Fatalf("targets after update: %+v", again.Targets)
	}
	if _, exists, err := lbs.GetLoadBalancer(ctx, "c1", svc); err != nil || !exists {
		t.Fatalf("GetLoadBalancer: %v %v", exists, err)
	}
	if err := lbs.EnsureLoadBalancerDeleted(ctx, "c1", svc); err != nil {
		t.Fatal(err)
	}
	if _, exists, err := lbs.GetLoadBalancer(ctx, "c1", svc); err != nil || exists {
		t.Fatalf("after delete: %v %v", exists, err)
	}
	if _, res, _ := api(t).IP.IPBlocksApi.IpBlocksIpBlockIdGet(ctx, blocks[0].Id).Execute(); res == nil || res.StatusCode != 404 {
		t.Fatalf("the block is still there")
	}
}

func TestInvalidAnnotationsAreNamed(t *testing.T) {
	lbs, _ := newTestCloud(t).LoadBalancer()
	_, err := lbs.EnsureLoadBalancer(context.Background(), "c1", service(map[string]string{AnnotationProxyProtocol: "v3", AnnotationHCRetries: "0"}), nil)
	if err == nil || !strings.Contains(err.Error(), AnnotationProxyProtocol) || !strings.Contains(err.Error(), AnnotationHCRetries) {
		t.Fatalf("err = %v", err)
	}
}

func TestLoadConfigNamesEveryMissingVariable(t *testing.T) {
	_, err := LoadConfig(providerkit.Map(nil))
	for _, key := range []string{EnvClientID, EnvClientSecret, EnvLocation, EnvSimcloudEndpoint, EnvSimcloudToken} {
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("err = %v, want %s named", err, key)
		}
	}
	if _, err := ParseProviderID("hcloud://42"); err == nil {
		t.Error("hcloud://42 was taken as a phoenixNAP providerID")
	}
}
