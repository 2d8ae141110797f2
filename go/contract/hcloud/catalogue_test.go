package hcloud

import (
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

func TestCatalogue(t *testing.T) {
	client := NewClient(sim)
	ctx := testContext(t)
	locations := all(client.Location.All(ctx)).Get(t)
	if len(locations) == 0 || locations[0].Name != "sim-1" || locations[0].NetworkZone != "sim-1" {
		t.Errorf("locations = %+v", locations)
	}
	location := ok(client.Location.GetByName(ctx, "sim-2")).Get(t)
	if location == nil || location.ID != 2 {
		t.Errorf("location sim-2 = %+v", location)
	}
	datacenters := all(client.Datacenter.All(ctx)).Get(t)
	if len(datacenters) < 2 || datacenters[0].Location == nil || datacenters[0].Location.Name != "sim-1" {
		t.Errorf("datacenters = %+v", datacenters)
	}
	serverType := ok(client.ServerType.GetByName(ctx, "sc-medium")).Get(t)
	if serverType == nil || serverType.Cores != 2 || serverType.Memory != 4 {
		t.Errorf("server type sc-medium = %+v", serverType)
	}
	byID := ok(client.ServerType.GetByID(ctx, serverType.ID)).Get(t)
	if byID == nil || byID.Name != "sc-medium" {
		t.Errorf("server type %d = %+v", serverType.ID, byID)
	}
	lbTypes := all(client.LoadBalancerType.All(ctx)).Get(t)
	if len(lbTypes) != 3 || lbTypes[0].Name != "lb11" || lbTypes[0].MaxServices != 5 {
		t.Errorf("load balancer types = %+v", lbTypes)
	}
	if dc := ok(client.Datacenter.GetByID(ctx, datacenters[1].ID)).Get(t); dc == nil || dc.Name != datacenters[1].Name {
		t.Errorf("datacenter %d = %+v", datacenters[1].ID, dc)
	}
	if loc := ok(client.Location.GetByID(ctx, 1)).Get(t); loc == nil || loc.Name != "sim-1" {
		t.Errorf("location 1 = %+v", loc)
	}
	image := ok(client.Image.GetByNameAndArchitecture(ctx, "debian-13", hcloud.ArchitectureX86)).Get(t)
	if image == nil || image.OSFlavor != "debian" || image.Type != hcloud.ImageTypeSystem {
		t.Errorf("image debian-13 = %+v", image)
	}
	if arm := ok(client.Image.GetByNameAndArchitecture(ctx, "debian-13", hcloud.ArchitectureARM)).Get(t); arm != nil {
		t.Errorf("an arm image: %+v, want none (simcloud's images are x86)", arm)
	}
	if byID := ok(client.Image.GetByID(ctx, image.ID)).Get(t); byID == nil || byID.Name != "debian-13" {
		t.Errorf("image %d = %+v", image.ID, byID)
	}
	if lbType := ok(client.LoadBalancerType.GetByID(ctx, 3)).Get(t); lbType == nil || lbType.Name != "lb31" {
		t.Errorf("load balancer type 3 = %+v", lbType)
	}
	certificates := all(client.Certificate.All(ctx)).Get(t)
	if len(certificates) != 0 {
		t.Errorf("certificates = %+v, want none", certificates)
	}
	if missing := ok(client.Certificate.GetByID(ctx, 1)).Get(t); missing != nil {
		t.Errorf("certificate 1 = %+v, want nil", missing)
	}
}
