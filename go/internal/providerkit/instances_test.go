package providerkit

import (
	"context"
	"errors"
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
