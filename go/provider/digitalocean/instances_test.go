package digitalocean

import (
	"context"
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"ccm-sandbox/go/internal/providerkit"
	"ccm-sandbox/go/internal/providerkit/poll"
	"ccm-sandbox/go/internal/simcloudtest"
)

func TestParseProviderID(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"digitalocean://42", 42, true}, {"42", 42, true}, {"digitalocean://", 0, false}, {"hcloud://42", 0, false}, {"digitalocean://-1", 0, false},
	} {
		got, err := ParseProviderID(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseProviderID(%q) = %d, %v", tc.in, got, err)
		}
	}
}

func TestLoadConfigUsesDigitalOceansNamesAndAPI(t *testing.T) {
	cfg, err := LoadConfig(providerkit.Map(map[string]string{EnvToken: "t", EnvRegion: "sim-1"}))
	if err != nil || cfg.URL != "https://api.digitalocean.com/" {
		t.Errorf("LoadConfig = %+v, %v", cfg, err)
	}
	if _, err := LoadConfig(providerkit.Map(nil)); err == nil || !strings.HasPrefix(err.Error(), "digitalocean: LoadConfig: invalid configuration: DO_ACCESS_TOKEN is not set") {
		t.Errorf("err = %v", err)
	}
}

func TestAnUnknownRegionFailsAtStart(t *testing.T) {
	cfg := testConfig()
	cfg.Region = "nyc3"
	if _, err := NewCloud(context.Background(), cfg); err == nil {
		t.Fatal("REGION=nyc3 was accepted by a simcloud that has sim-1 and sim-2")
	}
}

func TestInstanceMetadataByNameAndProviderID(t *testing.T) {
	name := simcloudtest.UniqueName("do-node")
	d := createDroplet(t, name)
	in, _ := newTestCloud(t).InstancesV2()
	ctx := context.Background()
	byName := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	poll.Eventually(t, "droplet active", func() error {
		got, _, err := api(t).Droplets.Get(ctx, d.ID)
		if err == nil && got.Status != "active" {
			err = fmt.Errorf("status %s", got.Status)
		}
		return err
	})
	md, err := in.InstanceMetadata(ctx, byName)
	if err != nil {
		t.Fatal(err)
	}
	if md.ProviderID != ProviderID(d.ID) || md.InstanceType != "sc-small" || md.Region != "sim-1" {
		t.Fatalf("metadata: %+v", md)
	}
	if md.NodeAddresses[0].Type != v1.NodeHostName || md.NodeAddresses[1].Type != v1.NodeInternalIP || md.NodeAddresses[2].Type != v1.NodeExternalIP {
		t.Errorf("addresses: %+v", md.NodeAddresses)
	}
	byID := &v1.Node{Spec: v1.NodeSpec{ProviderID: ProviderID(d.ID)}}
	if ok, err := in.InstanceExists(ctx, byID); err != nil || !ok {
		t.Fatalf("InstanceExists = %v, %v", ok, err)
	}
	if _, _, err := api(t).DropletActions.PowerOff(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	poll.Eventually(t, "InstanceShutdown true", func() error { return poll.Returns(true)(in.InstanceShutdown(ctx, byID)) })
	if _, err := api(t).Droplets.Delete(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	gone := &v1.Node{Spec: v1.NodeSpec{ProviderID: ProviderID(987654)}}
	if ok, err := in.InstanceExists(ctx, gone); err != nil || ok {
		t.Fatalf("a missing droplet: %v, %v", ok, err)
	}
}
