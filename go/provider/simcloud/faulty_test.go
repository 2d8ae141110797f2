package simcloud

import (
	"context"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"ccm-sandbox/go/internal/simcloudtest"
	"ccm-sandbox/go/provider/simcloud/client"
)

func TestFaultyVariantIsOffUnlessNamed(t *testing.T) {
	cases := []struct {
		env  string
		name string
		want bool
	}{
		{"", "rename-on-start", false},
		{"rename-on-start", "rename-on-start", true},
		{"adopt-by-name, rename-on-start", "rename-on-start", true},
		{"rename-on-start-x", "rename-on-start", false},
	}
	for _, c := range cases {
		t.Setenv(EnvFaultyVariants, c.env)
		if got := faultyVariant(c.name); got != c.want {
			t.Errorf("%q with %s=%q: got %v, want %v", c.name, EnvFaultyVariants, c.env, got, c.want)
		}
	}
}

// loadBalancersOf is one CCM process's load balancer capability (a new one is a restart).
func loadBalancersOf(t *testing.T) *loadBalancers {
	t.Helper()
	lbs, _ := newTestCloud(t, "").LoadBalancer()
	return lbs.(*loadBalancers)
}

func ensureOne(t *testing.T, l *loadBalancers, cluster string, svc *v1.Service, nodes []*v1.Node) client.LoadBalancer {
	t.Helper()
	if _, err := l.EnsureLoadBalancer(context.Background(), cluster, svc, nodes); err != nil {
		t.Fatal(err)
	}
	found := owned[client.LoadBalancer](t, "load_balancers", svc)
	if len(found) != 1 {
		t.Fatalf("%d load balancers owned by %s, want 1", len(found), svc.Name)
	}
	return found[0]
}

func TestRenameOnStartRenamesTheLoadBalancerAStartedProcessFinds(t *testing.T) {
	t.Setenv(EnvFaultyVariants, variantRenameOnStart)
	server := sim.CreateServer(t, unique("rename"), simcloudtest.ServerOpts{})
	nodes := []*v1.Node{node(server["name"].(string), "simcloud://"+server["id"].(string))}
	svc := lbService(unique("rename"), nil)
	first := loadBalancersOf(t)
	made := ensureOne(t, first, "test-cluster", svc, nodes)
	if again := ensureOne(t, first, "test-cluster", svc, nodes); again.Name != made.Name {
		t.Fatalf("the creating process renamed %s to %s", made.Name, again.Name)
	}
	restarted := loadBalancersOf(t)
	restarted.faults = newFaultyLBs(time.UnixMilli(42))
	after := ensureOne(t, restarted, "test-cluster", svc, nodes)
	if after.ID != made.ID || after.Name == made.Name || !strings.HasSuffix(after.Name, "-42") {
		t.Fatalf("after a restart: %s %q, want %s renamed with the new start", after.ID, after.Name, made.ID)
	}
}

func TestForgetDeletesDropsTheDeletionOfAServiceDeletedBeforeTheProcessStarted(t *testing.T) {
	t.Setenv(EnvFaultyVariants, variantForgetDeletes)
	server := sim.CreateServer(t, unique("forget"), simcloudtest.ServerOpts{})
	nodes := []*v1.Node{node(server["name"].(string), "simcloud://"+server["id"].(string))}
	before, after := lbService(unique("before"), nil), lbService(unique("after"), nil)
	first := loadBalancersOf(t)
	ensureOne(t, first, "test-cluster", before, nodes)
	ensureOne(t, first, "test-cluster", after, nodes)
	restarted := loadBalancersOf(t)
	restarted.faults = newFaultyLBs(time.UnixMilli(2_000_000))
	before.DeletionTimestamp = &metav1.Time{Time: time.UnixMilli(1_000_000)}
	after.DeletionTimestamp = &metav1.Time{Time: time.UnixMilli(3_000_000)}
	for _, svc := range []*v1.Service{before, after} {
		if err := restarted.EnsureLoadBalancerDeleted(context.Background(), "test-cluster", svc); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(owned[client.LoadBalancer](t, "load_balancers", after)); n != 0 {
		t.Fatalf("%d load balancers left for the Service deleted while the process ran, want 0", n)
	}
	if n := len(owned[client.LoadBalancer](t, "load_balancers", before)); n != 1 {
		t.Fatalf("%d load balancers left for the Service deleted before the process started, want the 1 the variant forgets", n)
	}
}

func TestAdoptByNameTakesTheLoadBalancerOfAnotherClustersServiceOfTheSameName(t *testing.T) {
	server := sim.CreateServer(t, unique("adopt"), simcloudtest.ServerOpts{})
	nodes := []*v1.Node{node(server["name"].(string), "simcloud://"+server["id"].(string))}
	name := unique("same")
	for _, c := range []struct {
		variants string
		adopted  bool
	}{{"", false}, {variantAdoptByName, true}} {
		t.Setenv(EnvFaultyVariants, c.variants)
		mine, theirs := lbService(name, nil), lbService(name, nil)
		mine.UID, theirs.UID = types.UID(unique("uid-mine")), types.UID(unique("uid-theirs"))
		a := ensureOne(t, loadBalancersOf(t), "cluster-a", mine, nodes)
		if _, err := loadBalancersOf(t).EnsureLoadBalancer(context.Background(), "cluster-b", theirs, nodes); err != nil {
			t.Fatal(err)
		}
		ofB := owned[client.LoadBalancer](t, "load_balancers", theirs)
		adopted := len(ofB) == 1 && ofB[0].ID == a.ID
		if adopted != c.adopted {
			t.Errorf("variants %q: cluster-b's Service got %v (cluster-a's is %s), adopted %v, want %v", c.variants, ofB, a.ID, adopted, c.adopted)
		}
		for _, svc := range []*v1.Service{mine, theirs} {
			_ = loadBalancersOf(t).EnsureLoadBalancerDeleted(context.Background(), "cluster-b", svc)
			_ = loadBalancersOf(t).EnsureLoadBalancerDeleted(context.Background(), "cluster-a", svc)
		}
	}
}

func TestLookupErrorNotFoundVariantReadsAServerErrorAsAMissingServer(t *testing.T) {
	cases := []struct {
		variants   string
		wantExists bool
		wantErr    bool
	}{
		{"", false, true},
		{VariantLookupErrorNotFound, false, false},
	}
	for _, c := range cases {
		t.Setenv(EnvFaultyVariants, c.variants)
		instances, _ := newTestCloud(t, "").InstancesV2()
		s := sim.CreateServer(t, unique("failing"), simcloudtest.ServerOpts{})
		sim.AddFault(t, map[string]any{"kind": "error", "status": 500, "code": "server_error", "match": map[string]any{"method": "GET", "path": "/v1/servers/" + s["id"].(string)}})
		exists, err := instances.InstanceExists(context.Background(), node("n", "simcloud://"+s["id"].(string)))
		if exists != c.wantExists || (err != nil) != c.wantErr {
			t.Errorf("variants %q: InstanceExists = %v, %v; want %v with an error %v", c.variants, exists, err, c.wantExists, c.wantErr)
		}
	}
}

func TestPoll100msVariantListsServersTenTimesASecondUntilStopped(t *testing.T) {
	cases := []struct {
		variants string
		polls    bool
	}{
		{"", false},
		{VariantPoll100ms, true},
	}
	for _, c := range cases {
		t.Setenv(EnvFaultyVariants, c.variants)
		cloud := newTestCloud(t, "")
		fired := sim.AddFault(t, map[string]any{"kind": "latency", "latency_ms": 0, "match": map[string]any{"method": "GET", "path": "/v1/servers"}})
		stop := make(chan struct{})
		cloud.Initialize(nil, stop)
		time.Sleep(time.Second)
		close(stop)
		// A second at 100 ms is ten lists; a loaded machine may delay some, never make them none.
		if n := fired(); (n >= 3) != c.polls {
			t.Errorf("variants %q: %d lists of the servers in a second", c.variants, n)
		}
	}
}

func TestIgnore429VariantRetriesBeforeRetryAfter(t *testing.T) {
	t.Setenv(EnvFaultyVariants, VariantIgnore429)
	instances, _ := newTestCloud(t, "").InstancesV2()
	s := sim.CreateServer(t, unique("limited"), simcloudtest.ServerOpts{})
	fired := sim.AddFault(t, map[string]any{"kind": "error", "status": 429, "code": "rate_limit_exceeded", "retry_after_seconds": 30, "match": map[string]any{"method": "GET", "path": "/v1/servers/" + s["id"].(string)}})
	_, err := instances.InstanceExists(context.Background(), node("n", "simcloud://"+s["id"].(string)))
	// Honouring Retry-After, the first retry would wait 30 s; the variant sends every retry at once.
	if !client.HasCode(err, client.CodeRateLimitExceeded) || fired() != client.DefaultRetryPolicy.MaxRetries+1 {
		t.Errorf("InstanceExists error %v after %d attempts; want rate_limit_exceeded after %d", err, fired(), client.DefaultRetryPolicy.MaxRetries+1)
	}
}

func TestKeepExcludedNodesVariantLeavesANodeThatLeftTheSetATarget(t *testing.T) {
	cases := []struct {
		variants string
		members  int
	}{
		{"", 1},
		{VariantKeepExcludedNodes, 2},
	}
	for _, c := range cases {
		t.Setenv(EnvFaultyVariants, c.variants)
		lbs, _ := newTestCloud(t, "").LoadBalancer()
		a := sim.CreateServer(t, unique("keep-a"), simcloudtest.ServerOpts{})
		b := sim.CreateServer(t, unique("keep-b"), simcloudtest.ServerOpts{})
		nodes := []*v1.Node{node(a["name"].(string), "simcloud://"+a["id"].(string)), node(b["name"].(string), "simcloud://"+b["id"].(string))}
		svc := lbService(unique("keep"), nil)
		if _, err := lbs.EnsureLoadBalancer(context.Background(), "test-cluster", svc, nodes); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = lbs.EnsureLoadBalancerDeleted(context.Background(), "test-cluster", svc) })
		// The second node was excluded: the service controller passes the first only.
		if err := lbs.UpdateLoadBalancer(context.Background(), "test-cluster", svc, nodes[:1]); err != nil {
			t.Fatal(err)
		}
		if got := owned[client.ServerGroup](t, "server_groups", svc)[0].Servers; len(got) != c.members {
			t.Errorf("variants %q: members %v, want %d", c.variants, got, c.members)
		}
	}
}

func TestKeepOldHealthCheckPortLeavesTheCheckOnTheNodePortWhenThePolicyBecomesLocal(t *testing.T) {
	server := sim.CreateServer(t, unique("hcport"), simcloudtest.ServerOpts{})
	nodes := []*v1.Node{node(server["name"].(string), "simcloud://"+server["id"].(string))}
	for _, c := range []struct {
		variants string
		want     int
	}{{"", 32000}, {VariantKeepOldHealthCheckPort, 30080}} {
		t.Setenv(EnvFaultyVariants, c.variants)
		svc := lbService(unique("hcport"), nil)
		l := loadBalancersOf(t)
		ensureOne(t, l, "test-cluster", svc, nodes)
		svc.Spec.ExternalTrafficPolicy, svc.Spec.HealthCheckNodePort = v1.ServiceExternalTrafficPolicyLocal, 32000
		lb := ensureOne(t, l, "test-cluster", svc, nodes)
		if hc := lb.Services[0].HealthCheck; hc.Port == nil || *hc.Port != c.want {
			t.Errorf("variants %q: the check of %s probes %v, want port %d", c.variants, lb.ID, hc.Port, c.want)
		}
		if err := l.EnsureLoadBalancerDeleted(context.Background(), "test-cluster", svc); err != nil {
			t.Fatal(err)
		}
	}
}

func TestIgnoreIPModeWritesVIPForAProxyProtocolLoadBalancer(t *testing.T) {
	lb := &client.LoadBalancer{PublicIPv4: "127.1.0.2", Services: []client.LoadBalancerService{{ListenPort: 80, ProxyProtocol: "v1"}}}
	for _, c := range []struct {
		variants string
		want     v1.LoadBalancerIPMode
	}{{"", v1.LoadBalancerIPModeProxy}, {VariantIgnoreIPMode, v1.LoadBalancerIPModeVIP}} {
		t.Setenv(EnvFaultyVariants, c.variants)
		if got := *ingressStatus(lb, defaultLBConfig()).Ingress[0].IPMode; got != c.want {
			t.Errorf("variants %q: ipMode %s, want %s", c.variants, got, c.want)
		}
	}
}
