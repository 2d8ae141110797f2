package brightbox

import (
	"strings"
	"testing"

	"ccm-sandbox/go/internal/providerkit"
)

func TestLoadConfig(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		want    Config
		missing []string
	}{
		{"nothing", nil, Config{}, []string{EnvClientID, EnvClientSecret}},
		{"Brightbox's URL by default", map[string]string{EnvClientID: "cli-abcde", EnvClientSecret: "s"},
			Config{APIURL: "https://api.gb1.brightbox.com/", ClientID: "cli-abcde", ClientSecret: "s"}, nil},
		{"the final slash added", map[string]string{EnvAPIURL: "http://127.0.0.1:8080/brightbox", EnvClientID: "cli-abcde", EnvClientSecret: "s"},
			Config{APIURL: "http://127.0.0.1:8080/brightbox/", ClientID: "cli-abcde", ClientSecret: "s"}, nil},
		{"not a URL", map[string]string{EnvAPIURL: "ftp://x", EnvClientID: "cli-abcde", EnvClientSecret: "s"}, Config{}, []string{EnvAPIURL}},
		{"a secret with a space", map[string]string{EnvClientID: "cli-abcde", EnvClientSecret: "a b"}, Config{}, []string{EnvClientSecret}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := LoadConfig(providerkit.Map(tc.env))
			if tc.missing == nil {
				if err != nil || got != tc.want {
					t.Fatalf("got %+v, %v", got, err)
				}
				return
			}
			for _, key := range tc.missing {
				if err == nil || !strings.Contains(err.Error(), key) {
					t.Errorf("err = %v, want %s named", err, key)
				}
			}
		})
	}
}

func TestProviderIDs(t *testing.T) {
	for _, tc := range []struct{ in, id string }{
		{"brightbox://srv-abc12", "srv-abc12"}, {"srv-abc12", "srv-abc12"}, {"hcloud://42", ""}, {"brightbox://lba-abc12", ""}, {"brightbox://", ""},
	} {
		id, err := ParseProviderID(tc.in)
		if id != tc.id || (err == nil) != (tc.id != "") {
			t.Errorf("%q: %q %v", tc.in, id, err)
		}
	}
	for _, tc := range []struct{ zone, region string }{{"gb1-a", "gb1"}, {"sim-1-a", "sim-1"}, {"gb1", ""}} {
		if got, err := RegionOf(tc.zone); got != tc.region || (err == nil) != (tc.region != "") {
			t.Errorf("%q: %q %v", tc.zone, got, err)
		}
	}
}
