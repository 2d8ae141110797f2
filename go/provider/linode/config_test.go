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

func TestParseProviderID(t *testing.T) {
	cases := []struct {
		in   string
		want int
		ok   bool
	}{{"linode://42", 42, true}, {"42", 42, true}, {"hcloud://42", 0, false}, {"linode://", 0, false}, {"linode://-1", 0, false}}
	for _, tc := range cases {
		got, err := ParseProviderID(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseProviderID(%q) = %d, %v", tc.in, got, err)
		}
	}
}
