package providerkit

import (
	"context"
	"errors"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cloudprovider "k8s.io/cloud-provider"
)

type machine struct{ off bool }

type callKey struct{}

func TestInstances(t *testing.T) {
	boom := errors.New("HTTP 500")
	machines := map[string]*machine{"on": {}, "off": {off: true}}
	var calls []Call
	in := &Instances[machine]{
		Provider: "kit",
		Attribute: func(ctx context.Context, _ *v1.Node, call Call) context.Context {
			return context.WithValue(ctx, callKey{}, call)
		},
		Find: func(ctx context.Context, node *v1.Node) (*machine, error) {
			calls = append(calls, ctx.Value(callKey{}).(Call))
			if node.Name == "broken" {
				return nil, boom
			}
			return machines[node.Name], nil
		},
		Off: func(m *machine) bool { return m.off },
		Metadata: func(ctx context.Context, m *machine) (*cloudprovider.InstanceMetadata, error) {
			return &cloudprovider.InstanceMetadata{ProviderID: "kit://" + ctx.Value(callKey{}).(Call).Method}, nil
		},
	}
	cases := []struct {
		node                string
		exists, shutdown    bool
		providerID, wantErr string
		notFound            bool
	}{
		{node: "on", exists: true, providerID: "kit://InstanceMetadata"},
		{node: "off", exists: true, shutdown: true, providerID: "kit://InstanceMetadata"},
		{node: "gone", notFound: true},
		{node: "broken", wantErr: "kit: InstanceExists: node broken: HTTP 500"},
	}
	for _, tc := range cases {
		t.Run(tc.node, func(t *testing.T) {
			ctx, node := context.Background(), &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: tc.node}}
			exists, err := in.InstanceExists(ctx, node)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr || !errors.Is(err, boom) {
					t.Fatalf("InstanceExists error %v, want %s", err, tc.wantErr)
				}
				return
			}
			shutdown, serr := in.InstanceShutdown(ctx, node)
			md, merr := in.InstanceMetadata(ctx, node)
			if err != nil || serr != nil || exists != tc.exists || shutdown != tc.shutdown {
				t.Errorf("exists %v, %v; shutdown %v, %v", exists, err, shutdown, serr)
			}
			if tc.notFound != errors.Is(merr, cloudprovider.InstanceNotFound) || (md != nil && md.ProviderID != tc.providerID) {
				t.Errorf("metadata %+v, %v", md, merr)
			}
		})
	}
	if calls[0].Controller != "cloud-node-lifecycle-controller" || calls[2] != (Call{"cloud-node-controller", "InstanceMetadata"}) {
		t.Errorf("calls %v", calls)
	}
}
