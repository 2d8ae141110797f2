package digitalocean

import (
	"context"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"ccm-sandbox/go/internal/providerkit/poll"
	"ccm-sandbox/go/internal/simcloudtest"
)

func service(annotations map[string]string) *v1.Service {
	return &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: types.UID(simcloudtest.UniqueName("uid")), Annotations: annotations},
		Spec:       v1.ServiceSpec{Type: v1.ServiceTypeLoadBalancer, Ports: []v1.ServicePort{{Port: 80, NodePort: 30080, Protocol: v1.ProtocolTCP}}},
	}
}

func TestEnsureLoadBalancerWaitsForActiveThenReportsTheVIPWithTheAnnotationsApplied(t *testing.T) {
	d := createDroplet(t, simcloudtest.UniqueName("do-lb-node"))
	lbs, _ := newTestCloud(t).LoadBalancer()
	ctx := context.Background()
	svc := service(map[string]string{
		AnnProxyProtocol: "true", AnnAlgorithm: "least_connections", AnnHealthCheckProtocol: "http", AnnHealthCheckPath: "/healthz",
		AnnStickySessionsType: "cookies", AnnStickySessionsCookie: "s", AnnSizeUnit: "2",
	})
	nodes := []*v1.Node{{Spec: v1.NodeSpec{ProviderID: ProviderID(d.ID)}}}
	t.Cleanup(func() { _ = lbs.EnsureLoadBalancerDeleted(ctx, "", svc) })
	_, err := lbs.EnsureLoadBalancer(ctx, "", svc, nodes)
	if err == nil || !strings.Contains(err.Error(), "not yet active") {
		t.Fatalf("first Ensure: %v, want not yet active", err)
	}
	var st *v1.LoadBalancerStatus
	poll.Eventually(t, "EnsureLoadBalancer once active", func() (err error) {
		st, err = lbs.EnsureLoadBalancer(ctx, "", svc, nodes)
		return err
	})
	if len(st.Ingress) != 1 || st.Ingress[0].IP == "" {
		t.Fatalf("status: %+v", st)
	}
	list, _, err := api(t).LoadBalancers.List(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, lb := range list {
		if lb.Name != lbs.GetLoadBalancerName(ctx, "", svc) {
			continue
		}
		found = true
		if !lb.EnableProxyProtocol || lb.Algorithm != "least_connections" || lb.HealthCheck.Path != "/healthz" || lb.StickySessions.CookieName != "s" || lb.SizeUnit != 2 {
			t.Errorf("settings: %+v %+v %+v", lb, lb.HealthCheck, lb.StickySessions)
		}
		if len(lb.DropletIDs) != 1 || lb.DropletIDs[0] != d.ID || lb.ForwardingRules[0].TargetPort != 30080 || lb.IP != st.Ingress[0].IP {
			t.Errorf("droplets %v rules %+v ip %s", lb.DropletIDs, lb.ForwardingRules, lb.IP)
		}
	}
	if !found {
		t.Fatal("no load balancer by the Service's name")
	}
	if err := lbs.UpdateLoadBalancer(ctx, "", svc, nil); err != nil {
		t.Fatal(err)
	}
	if err := lbs.EnsureLoadBalancerDeleted(ctx, "", svc); err != nil {
		t.Fatal(err)
	}
	if _, exists, err := lbs.GetLoadBalancer(ctx, "", svc); err != nil || exists {
		t.Fatalf("after delete: exists %v, %v", exists, err)
	}
}

func TestABadAnnotationIsAnErrorNamingIt(t *testing.T) {
	lbs, _ := newTestCloud(t).LoadBalancer()
	_, err := lbs.EnsureLoadBalancer(context.Background(), "", service(map[string]string{AnnHealthCheckInterval: "1"}), nil)
	if err == nil || !strings.Contains(err.Error(), AnnHealthCheckInterval) {
		t.Fatalf("err = %v", err)
	}
}
