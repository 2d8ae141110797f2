package simcloud

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"ccm-sandbox/go/internal/simcloudtest"
	"ccm-sandbox/go/provider/simcloud/client"
)

func lbService(name string, annotations map[string]string) *v1.Service {
	return &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), Annotations: annotations},
		Spec: v1.ServiceSpec{
			Type:  v1.ServiceTypeLoadBalancer,
			Ports: []v1.ServicePort{{Name: "http", Port: 80, NodePort: 30080, Protocol: v1.ProtocolTCP}},
		},
	}
}

// owned lists the Service's resources of one kind by the owner labels.
func owned[T any](t *testing.T, kind string, svc *v1.Service) []T {
	t.Helper()
	var out map[string]json.RawMessage
	sim.Do(t, "GET", "/v1/"+kind+"?label_selector="+url.QueryEscape(labelServiceUID+"="+string(svc.UID)), nil, &out)
	var items []T
	if err := json.Unmarshal(out[kind], &items); err != nil {
		t.Fatalf("%s: %v", kind, err)
	}
	return items
}

func TestEnsureLoadBalancerCreatesGroupPolicyAndLoadBalancer(t *testing.T) {
	cloud := newTestCloud(t, "")
	lbs, _ := cloud.LoadBalancer()
	ctx := context.Background()
	byID := sim.CreateServer(t, unique("lb-a"), simcloudtest.ServerOpts{})
	byName := sim.CreateServer(t, unique("lb-b"), simcloudtest.ServerOpts{})
	nodes := []*v1.Node{node(byID["name"].(string), "simcloud://"+byID["id"].(string)), node(byName["name"].(string), "")}
	svc := lbService(unique("web"), map[string]string{AnnotationAlgorithm: "least_connections", AnnotationHealthCheckPath: "/ready", AnnotationHealthCheckProtocol: "http"})
	svc.Spec.LoadBalancerSourceRanges = []string{"127.0.0.0/8"}
	svc.Spec.SessionAffinity = v1.ServiceAffinityClientIP

	status, err := lbs.EnsureLoadBalancer(ctx, "test-cluster", svc, nodes)
	if err != nil {
		t.Fatal(err)
	}
	lb := owned[client.LoadBalancer](t, "load_balancers", svc)
	groups := owned[client.ServerGroup](t, "server_groups", svc)
	policies := owned[client.FirewallPolicy](t, "firewall_policies", svc)
	if len(lb) != 1 || len(groups) != 1 || len(policies) != 1 {
		t.Fatalf("resources: %d load balancers, %d groups, %d policies; want one each", len(lb), len(groups), len(policies))
	}
	if status.Ingress[0].IP != lb[0].PublicIPv4 || *status.Ingress[0].IPMode != v1.LoadBalancerIPModeVIP {
		t.Errorf("status %+v for VIP %s", status, lb[0].PublicIPv4)
	}
	wantName := "test-cluster-" + strings.ReplaceAll("auid-"+svc.Name, "-", "")
	if len(wantName) > len("test-cluster-")+32 {
		wantName = wantName[:len("test-cluster-")+32]
	}
	if lb[0].Name != wantName || groups[0].Name != wantName || policies[0].Name != wantName {
		t.Errorf("names %q %q %q, want %q", lb[0].Name, groups[0].Name, policies[0].Name, wantName)
	}
	if got := lb[0].Labels; got[labelManagedBy] != managedBy || got[labelCluster] != "test-cluster" || got[labelService] != "default."+svc.Name {
		t.Errorf("labels %v", got)
	}
	if lb[0].Algorithm != "least_connections" || lb[0].SessionAffinity != "source_ip" || len(lb[0].SourceRanges) != 0 {
		t.Errorf("load balancer %+v", lb[0])
	}
	if hc := lb[0].Services[0].HealthCheck; hc.Protocol != "http" || hc.Path != "/ready" || *hc.Port != 30080 {
		t.Errorf("health check %+v", hc)
	}
	if len(lb[0].Targets) != 1 || lb[0].Targets[0].ServerGroupID != groups[0].ID {
		t.Errorf("targets %+v, want the group %s", lb[0].Targets, groups[0].ID)
	}
	if len(groups[0].Servers) != 2 {
		t.Errorf("group members %v, want both servers", groups[0].Servers)
	}
	rule := policies[0].Rules[0]
	if *policies[0].ServerGroupID != groups[0].ID || *rule.Ports != "30080" || rule.SourceCIDRs[0] != "127.0.0.0/8" {
		t.Errorf("policy %+v", policies[0])
	}

	// A second Ensure changes nothing; Update follows the node set; deletion removes everything.
	if _, err := lbs.EnsureLoadBalancer(ctx, "test-cluster", svc, nodes); err != nil {
		t.Fatal(err)
	}
	if n := len(owned[client.LoadBalancer](t, "load_balancers", svc)); n != 1 {
		t.Fatalf("%d load balancers after a second Ensure", n)
	}
	if err := lbs.UpdateLoadBalancer(ctx, "test-cluster", svc, nodes[:1]); err != nil {
		t.Fatal(err)
	}
	if got := owned[client.ServerGroup](t, "server_groups", svc)[0].Servers; len(got) != 1 || got[0] != byID["id"] {
		t.Errorf("members after Update %v, want [%s]", got, byID["id"])
	}
	if _, exists, err := lbs.GetLoadBalancer(ctx, "test-cluster", svc); !exists || err != nil {
		t.Errorf("GetLoadBalancer exists=%v err=%v", exists, err)
	}
	if err := lbs.EnsureLoadBalancerDeleted(ctx, "test-cluster", svc); err != nil {
		t.Fatal(err)
	}
	left := len(owned[client.LoadBalancer](t, "load_balancers", svc)) + len(owned[client.ServerGroup](t, "server_groups", svc)) + len(owned[client.FirewallPolicy](t, "firewall_policies", svc))
	if left != 0 {
		t.Errorf("%d resources left after EnsureLoadBalancerDeleted", left)
	}
	if _, exists, err := lbs.GetLoadBalancer(ctx, "test-cluster", svc); exists || err != nil {
		t.Errorf("after deletion GetLoadBalancer exists=%v err=%v", exists, err)
	}
}

func TestInvalidServicesAreRefusedBeforeAnyCloudCall(t *testing.T) {
	cloud := newTestCloud(t, "")
	lbs, _ := cloud.LoadBalancer()
	sctp := lbService(unique("sctp"), nil)
	sctp.Spec.Ports[0].Protocol = v1.ProtocolSCTP
	cases := []struct {
		name string
		svc  *v1.Service
		want string
	}{
		{"bad enum", lbService(unique("bad"), map[string]string{AnnotationProtocol: "udp"}), `annotation loadbalancer.simcloud.dev/protocol="udp" must be one of: tcp, http, https`},
		{"unknown key", lbService(unique("typo"), map[string]string{AnnotationPrefix + "protocoll": "tcp"}), "annotation loadbalancer.simcloud.dev/protocoll is not known"},
		{"SCTP port", sctp, "spec.ports[http] protocol SCTP is not supported; allowed: TCP, UDP"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := lbs.EnsureLoadBalancer(context.Background(), "test-cluster", tc.svc, nil)
			var invalid *InvalidServiceError
			if !errors.As(err, &invalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want an InvalidServiceError containing %q", err, tc.want)
			}
			if n := len(owned[client.ServerGroup](t, "server_groups", tc.svc)); n != 0 {
				t.Errorf("%d server groups created for an invalid Service", n)
			}
		})
	}
}

func TestPreserveKeepsTheCloudResources(t *testing.T) {
	cloud := newTestCloud(t, "")
	lbs, _ := cloud.LoadBalancer()
	svc := lbService(unique("keep"), map[string]string{AnnotationPreserve: "true"})
	if _, err := lbs.EnsureLoadBalancer(context.Background(), "test-cluster", svc, nil); err != nil {
		t.Fatal(err)
	}
	if err := lbs.EnsureLoadBalancerDeleted(context.Background(), "test-cluster", svc); err != nil {
		t.Fatal(err)
	}
	if n := len(owned[client.LoadBalancer](t, "load_balancers", svc)); n != 1 {
		t.Errorf("%d load balancers after a preserved deletion, want 1", n)
	}
	svc.Annotations[AnnotationPreserve] = "false"
	if err := lbs.EnsureLoadBalancerDeleted(context.Background(), "test-cluster", svc); err != nil {
		t.Fatal(err)
	}
}

func TestLoadBalancerIPTakesTheVIPOfAnIPBlock(t *testing.T) {
	cloud := newTestCloud(t, "")
	lbs, _ := cloud.LoadBalancer()
	var regions struct {
		Regions []struct{ ID string } `json:"regions"`
	}
	sim.Do(t, "GET", "/v1/regions", nil, &regions)
	var block struct {
		IPBlock client.IPBlock `json:"ip_block"`
	}
	sim.Do(t, "POST", "/v1/ip_blocks", map[string]any{"location": regions.Regions[0].ID}, &block)
	vip := blockVIP(block.IPBlock.CIDR)

	svc := lbService(unique("fixed"), nil)
	svc.Spec.LoadBalancerIP = vip
	status, err := lbs.EnsureLoadBalancer(context.Background(), "test-cluster", svc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if status.Ingress[0].IP != vip {
		t.Errorf("ingress %s, want the block's VIP %s", status.Ingress[0].IP, vip)
	}
	svc.Spec.LoadBalancerIP = "127.250.0.2"
	if _, err := lbs.EnsureLoadBalancer(context.Background(), "test-cluster", svc, nil); err == nil || !strings.Contains(err.Error(), "a VIP cannot change in place") {
		t.Errorf("changing spec.loadBalancerIP: error %v", err)
	}
	other := lbService(unique("nofree"), nil)
	other.Spec.LoadBalancerIP = vip
	if _, err := lbs.EnsureLoadBalancer(context.Background(), "test-cluster", other, nil); err == nil || !strings.Contains(err.Error(), "no unassigned IP block has it as its VIP") {
		t.Errorf("a VIP already taken: error %v", err)
	}
	for _, s := range []*v1.Service{svc, other} {
		if err := lbs.EnsureLoadBalancerDeleted(context.Background(), "test-cluster", s); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAnInvalidPreserveValueStopsDeletion(t *testing.T) {
	lbs, _ := newTestCloud(t, "").LoadBalancer()
	svc := lbService(unique("maybe"), nil)
	if _, err := lbs.EnsureLoadBalancer(context.Background(), "test-cluster", svc, nil); err != nil {
		t.Fatal(err)
	}
	svc.Annotations = map[string]string{AnnotationPreserve: "maybe"}
	err := lbs.EnsureLoadBalancerDeleted(context.Background(), "test-cluster", svc)
	if err == nil || !strings.Contains(err.Error(), `annotation loadbalancer.simcloud.dev/preserve="maybe" must be one of: true, false`) {
		t.Fatalf("error %v", err)
	}
	if n := len(owned[client.LoadBalancer](t, "load_balancers", svc)); n != 1 {
		t.Errorf("%d load balancers after a refused deletion, want 1", n)
	}
	svc.Annotations = nil
	if err := lbs.EnsureLoadBalancerDeleted(context.Background(), "test-cluster", svc); err != nil {
		t.Fatal(err)
	}
}

// A UDP Service port reaches simcloud as a udp listener that checks nothing, behind a udp firewall rule.
func TestAUDPServiceGetsAUDPListenerAndAUDPFirewallRule(t *testing.T) {
	cloud := newTestCloud(t, "")
	lbs, _ := cloud.LoadBalancer()
	server := sim.CreateServer(t, unique("udp-a"), simcloudtest.ServerOpts{})
	svc := lbService(unique("dns"), nil)
	svc.Spec.Ports = []v1.ServicePort{{Name: "dns", Port: 53, NodePort: 30053, Protocol: v1.ProtocolUDP}}
	if _, err := lbs.EnsureLoadBalancer(context.Background(), "test-cluster", svc, []*v1.Node{node(server["name"].(string), "simcloud://"+server["id"].(string))}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lbs.EnsureLoadBalancerDeleted(context.Background(), "test-cluster", svc) })
	lb := owned[client.LoadBalancer](t, "load_balancers", svc)
	if len(lb) != 1 || len(lb[0].Services) != 1 {
		t.Fatalf("load balancers %+v", lb)
	}
	if s := lb[0].Services[0]; s.Protocol != "udp" || s.ProxyProtocol != "none" || s.HealthCheck.Protocol != "none" || s.ListenPort != 53 || s.DestinationPort != 30053 {
		t.Errorf("service %+v", s)
	}
	policies := owned[client.FirewallPolicy](t, "firewall_policies", svc)
	if len(policies) != 1 || len(policies[0].Rules) != 1 || policies[0].Rules[0].Protocol != "udp" || *policies[0].Rules[0].Ports != "30053" {
		t.Errorf("firewall policies %+v", policies)
	}
}
