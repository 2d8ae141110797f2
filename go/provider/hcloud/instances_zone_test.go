package hcloud

import (
	"reflect"
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
)

func TestDatacenterByLocationIsTheLocationsFirst(t *testing.T) {
	fsn, nbg := &hcloud.Location{Name: "fsn1"}, &hcloud.Location{Name: "nbg1"}
	got := datacenterByLocation([]*hcloud.Datacenter{
		{ID: 4, Name: "fsn1-dc14", Location: fsn},
		{ID: 2, Name: "nbg1-dc3", Location: nbg},
		{ID: 3, Name: "fsn1-dc8", Location: fsn},
		{ID: 9, Name: "orphan"},
	})
	want := map[string]string{"fsn1": "fsn1-dc8", "nbg1": "nbg1-dc3"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
