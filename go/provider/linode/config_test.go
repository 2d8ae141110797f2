package linode

import (
	"testing"

	"ccm-sandbox/go/internal/providerkit"
)

func TestLoadConfigNamesLinodesVariables(t *testing.T) {
	want := "linode: LoadConfig: invalid configuration: LINODE_API_TOKEN is not set: an API token; LINODE_REGION is not set: the region of load balancers, e.g. sim-1"
	if _, err := LoadConfig(providerkit.Map(nil)); err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %s", err, want)
	}
}

func TestProviderIDsRoundTrip(t *testing.T) {
	if id, err := ParseProviderID(ProviderID(42)); err != nil || id != 42 || ProviderID(42) != "linode://42" {
		t.Errorf("ParseProviderID(%s) = %d, %v", ProviderID(42), id, err)
	}
}
