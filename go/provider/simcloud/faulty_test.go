package simcloud

import (
	"context"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
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

func TestForgetDeletesDropsTheDeletionOfAServiceTheProcessNeverSaw(t *testing.T) {
	t.Setenv(EnvFaultyVariants, variantForgetDeletes)
	server := sim.CreateServer(t, unique("forget"), simcloudtest.ServerOpts{})
	nodes := []*v1.Node{node(server["name"].(string), "simcloud://"+server["id"].(string))}
	seen, unseen := lbService(unique("seen"), nil), lbService(unique("unseen"), nil)
	before := loadBalancersOf(t)
	ensureOne(t, before, "test-cluster", seen, nodes)
	ensureOne(t, before, "test-cluster", unseen, nodes)
	restarted := loadBalancersOf(t)
	ensureOne(t, restarted, "test-cluster", seen, nodes)
	for _, svc := range []*v1.Service{seen, unseen} {
		if err := restarted.EnsureLoadBalancerDeleted(context.Background(), "test-cluster", svc); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(owned[client.LoadBalancer](t, "load_balancers", seen)); n != 0 {
		t.Fatalf("%d load balancers left for the Service the process saw, want 0", n)
	}
	if n := len(owned[client.LoadBalancer](t, "load_balancers", unseen)); n != 1 {
		t.Fatalf("%d load balancers left for the Service deleted unseen, want the 1 the variant forgets", n)
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
