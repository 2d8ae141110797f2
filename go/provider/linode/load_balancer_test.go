package linode

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/linode/linodego/v2"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func node(name, ip string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: v1.NodeStatus{Addresses: []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: ip}}}}
}

func service(uid string, ann map[string]string, ports ...v1.ServicePort) *v1.Service {
	return &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: types.UID(uid), Annotations: ann},
		Spec:       v1.ServiceSpec{Type: v1.ServiceTypeLoadBalancer, Ports: ports},
	}
}

func nodeAddresses(t *testing.T, nbID, configID int) []string {
	t.Helper()
	nodes, err := api(t).ListNodeBalancerNodes(context.Background(), nbID, configID, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, n := range nodes {
		out = append(out, n.Address)
	}
	sort.Strings(out)
	return out
}

func TestLoadBalancerLifecycleWithAnnotations(t *testing.T) {
	ctx := context.Background()
	lb, _ := newTestCloud(t).LoadBalancer()
	svc := service("0a1b2c3d-0000-4000-8000-00000000abcd", map[string]string{
		AnnProtocol: "tcp", AnnProxyProtocol: "v2", AnnCheckType: "http", AnnCheckPath: "/healthz", AnnCheckInterval: "7", AnnTags: "team-a",
	}, v1.ServicePort{Name: "http", Port: 80, NodePort: 30080, Protocol: v1.ProtocolTCP})
	nodes := []*v1.Node{node("n1", "10.1.0.1"), node("n2", "10.1.0.2")}
	st, err := lb.EnsureLoadBalancer(ctx, "sandbox", svc, nodes)
	if err != nil || len(st.Ingress) != 1 || st.Ingress[0].IP == "" {
		t.Fatalf("EnsureLoadBalancer = %+v, %v", st, err)
	}
	t.Cleanup(func() { _ = lb.EnsureLoadBalancerDeleted(ctx, "sandbox", svc) })
	list, err := api(t).ListNodeBalancers(ctx, &linodego.ListOptions{Filter: `{"ipv4": "` + st.Ingress[0].IP + `"}`})
	if err != nil || len(list) != 1 || *list[0].Label != nbLabel(svc) || !slices.Contains(list[0].Tags, "team-a") || !slices.Contains(list[0].Tags, "sandbox") {
		t.Fatalf("NodeBalancer %+v, %v", list, err)
	}
	nb := list[0]
	cfgs, err := api(t).ListNodeBalancerConfigs(ctx, nb.ID, nil)
	if err != nil || len(cfgs) != 1 {
		t.Fatalf("configs %v, %v", cfgs, err)
	}
	c := cfgs[0]
	if c.Port != 80 || c.ProxyProtocol != linodego.ProxyProtocolV2 || c.Check != linodego.CheckHTTP || c.CheckPath != "/healthz" || c.CheckInterval != 7 {
		t.Errorf("config %+v", c)
	}
	if got := nodeAddresses(t, nb.ID, c.ID); !slices.Equal(got, []string{"10.1.0.1:30080", "10.1.0.2:30080"}) {
		t.Errorf("nodes %v", got)
	}

	// A node leaves, another joins, a port is added: the config is rebuilt, the new port gets its own.
	svc.Spec.Ports = append(svc.Spec.Ports, v1.ServicePort{Name: "https", Port: 443, NodePort: 30443, Protocol: v1.ProtocolTCP})
	if err := lb.UpdateLoadBalancer(ctx, "sandbox", svc, []*v1.Node{node("n2", "10.1.0.2"), node("n3", "10.1.0.3")}); err != nil {
		t.Fatal(err)
	}
	cfgs, err = api(t).ListNodeBalancerConfigs(ctx, nb.ID, nil)
	if err != nil || len(cfgs) != 2 {
		t.Fatalf("configs after update %v, %v", cfgs, err)
	}
	for _, c := range cfgs {
		want := map[int][]string{80: {"10.1.0.2:30080", "10.1.0.3:30080"}, 443: {"10.1.0.2:30443", "10.1.0.3:30443"}}[c.Port]
		if got := nodeAddresses(t, nb.ID, c.ID); !slices.Equal(got, want) {
			t.Errorf("port %d nodes %v, want %v", c.Port, got, want)
		}
	}
	if _, exists, err := lb.GetLoadBalancer(ctx, "sandbox", svc); err != nil || !exists {
		t.Fatalf("GetLoadBalancer = %v, %v", exists, err)
	}
	if err := lb.EnsureLoadBalancerDeleted(ctx, "sandbox", svc); err != nil {
		t.Fatal(err)
	}
	if _, exists, err := lb.GetLoadBalancer(ctx, "sandbox", svc); err != nil || exists {
		t.Fatalf("after delete: %v, %v", exists, err)
	}
	if err := lb.EnsureLoadBalancerDeleted(ctx, "sandbox", svc); err != nil {
		t.Fatalf("second delete: %v", err)
	}
}

func TestLoadBalancerRefusesBadAnnotationsNamingThem(t *testing.T) {
	lb, _ := newTestCloud(t).LoadBalancer()
	cases := map[string]string{AnnProxyProtocol: "v3", AnnCheckInterval: "1", AnnProtocol: "udp"}
	for key, value := range cases {
		svc := service("0a1b2c3d-0000-4000-8000-0000000000ee", map[string]string{key: value}, v1.ServicePort{Port: 80, NodePort: 30080})
		_, err := lb.EnsureLoadBalancer(context.Background(), "sandbox", svc, nil)
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s=%s: %v, want an error naming the annotation", key, value, err)
		}
	}
}

// Linode's CCM takes a node's backend address from its private-ip annotation, else its first InternalIP,
// and fails the sync for a node with neither ("no internal IP found for node"), so the service controller
// retries once the node's addresses arrive.
func TestNodesForPicksTheBackendAsLinodesCCMDoes(t *testing.T) {
	annotated := node("annotated", "192.168.128.9")
	annotated.Annotations = map[string]string{PrivateIPAnnotation: "192.168.128.7"}
	got, err := nodesFor([]*v1.Node{annotated, node("plain", "192.168.128.8")}, 30080)
	if err != nil || len(got) != 2 || got[0].Address != "192.168.128.7:30080" || got[1].Address != "192.168.128.8:30080" {
		t.Fatalf("nodesFor = %+v, %v", got, err)
	}
	bare := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "bare"}, Status: v1.NodeStatus{Addresses: []v1.NodeAddress{{Type: v1.NodeExternalIP, Address: "127.20.0.9"}}}}
	if _, err := nodesFor([]*v1.Node{bare}, 30080); err == nil || !strings.Contains(err.Error(), "no internal IP found for node bare") {
		t.Fatalf("nodesFor(no InternalIP) = %v, want the Linode CCM's error", err)
	}
}
