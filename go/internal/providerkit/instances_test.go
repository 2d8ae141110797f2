package providerkit

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cloudprovider "k8s.io/cloud-provider"
)

type machine struct{ off bool }

type callKey struct{}

var errNotFound = errors.New("HTTP 404")

func TestInstances(t *testing.T) {
	boom := errors.New("HTTP 500")
	machines := map[string]*machine{"on": {}, "off": {off: true}}
	var calls []Call
	in := &Instances[machine]{
		Provider: "kit",
		Attribute: func(ctx context.Context, _ *v1.Node, call Call) context.Context {
			return context.WithValue(ctx, callKey{}, call)
		},
		ByName: func(ctx context.Context, name string) (*machine, error) {
			calls = append(calls, ctx.Value(callKey{}).(Call))
			if name == "broken" {
				return nil, boom
			}
			return machines[name], nil
		},
		ByProviderID: func(_ context.Context, providerID string) (*machine, error) {
			name, ok := strings.CutPrefix(providerID, "kit://")
			if !ok {
				return nil, errors.New("not a kit providerID")
			}
			if m, ok := machines[name]; ok {
				return m, nil
			}
			return nil, errNotFound
		},
		Missing: func(err error) bool { return errors.Is(err, errNotFound) },
		Off:     func(m *machine) bool { return m.off },
		Metadata: func(ctx context.Context, m *machine) (*cloudprovider.InstanceMetadata, error) {
			return &cloudprovider.InstanceMetadata{ProviderID: "kit://" + ctx.Value(callKey{}).(Call).Method}, nil
		},
	}
	cases := []struct {
		node                            string
		exists, shutdown                bool
		providerID, metadataID, wantErr string
		notFound                        bool
	}{
		{node: "on", exists: true, metadataID: "kit://InstanceMetadata"},
		{node: "off", exists: true, shutdown: true, metadataID: "kit://InstanceMetadata"},
		{node: "gone", notFound: true},
		{node: "broken", wantErr: "kit: InstanceExists: node broken: HTTP 500"},
		{node: "by-id", providerID: "kit://off", exists: true, shutdown: true},
		{node: "by-id-gone", providerID: "kit://gone", notFound: true},
		{node: "another cloud's", providerID: "aws:///i-1", wantErr: "kit: InstanceExists: node another cloud's: not a kit providerID"},
	}
	for _, tc := range cases {
		t.Run(tc.node, func(t *testing.T) {
			ctx, node := context.Background(), &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: tc.node}, Spec: v1.NodeSpec{ProviderID: tc.providerID}}
			exists, err := in.InstanceExists(ctx, node)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr || (tc.node == "broken" && !errors.Is(err, boom)) {
					t.Fatalf("InstanceExists error %v, want %s", err, tc.wantErr)
				}
				return
			}
			shutdown, serr := in.InstanceShutdown(ctx, node)
			md, merr := in.InstanceMetadata(ctx, node)
			if err != nil || serr != nil || exists != tc.exists || shutdown != tc.shutdown {
				t.Errorf("exists %v, %v; shutdown %v, %v", exists, err, shutdown, serr)
			}
			if tc.notFound != errors.Is(merr, cloudprovider.InstanceNotFound) || (md != nil && tc.metadataID != "" && md.ProviderID != tc.metadataID) {
				t.Errorf("metadata %+v, %v", md, merr)
			}
		})
	}
	if calls[0].Controller != "cloud-node-lifecycle-controller" || calls[2] != (Call{"cloud-node-controller", "InstanceMetadata"}) {
		t.Errorf("calls %v", calls)
	}
}

func TestNumericID(t *testing.T) {
	cases := []struct {
		in   string
		want int
		ok   bool
	}{
		{"linode://42", 42, true}, {"42", 42, true}, {"linode://", 0, false}, {"hcloud://42", 0, false}, {"linode://-1", 0, false}, {"linode://x", 0, false},
	}
	for _, tc := range cases {
		got, err := NumericID("linode", tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("NumericID(%q) = %d, %v", tc.in, got, err)
		}
	}
}

func TestMachineIDs(t *testing.T) {
	parse := func(pid string) (string, error) {
		if pid == "kit://" {
			return "", errors.New("malformed")
		}
		return strings.TrimPrefix(pid, "kit://"), nil
	}
	cases := []struct {
		name    string
		nodes   []*v1.Node
		listed  bool
		want    []string
		wantErr bool
	}{
		{name: "by providerID, sorted, once", nodes: []*v1.Node{node("a", "kit://s2"), node("b", "kit://s1"), node("c", "kit://s2")}, want: []string{"s1", "s2"}},
		{name: "by name from one listing", nodes: []*v1.Node{node("web-1", ""), node("nobody", ""), node("x", "kit://s9")}, listed: true, want: []string{"s1", "s9"}},
		{name: "another provider's node is skipped", nodes: []*v1.Node{node("a", "aws:///i-1")}, want: []string{}},
		{name: "a malformed providerID is an error", nodes: []*v1.Node{node("a", "kit://")}, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			listed := false
			got, err := MachineIDs(tc.nodes, "kit://", parse, func() (map[string]string, error) {
				listed = true
				return map[string]string{"web-1": "s1"}, nil
			})
			if (err != nil) != tc.wantErr || (!tc.wantErr && !slices.Equal(got, tc.want)) || listed != tc.listed {
				t.Errorf("MachineIDs = %v, %v (listed %v); want %v (listed %v)", got, err, listed, tc.want, tc.listed)
			}
		})
	}
}

func node(name, providerID string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.NodeSpec{ProviderID: providerID}}
}
