package linode

import (
	"strings"
	"testing"
)

func TestLoadConfig(t *testing.T) {
	cases := []struct {
		name, wantErr, wantURL string
		env                    map[string]string
	}{
		{"all set", "", "http://127.0.0.1:1/v4", map[string]string{EnvToken: "t", EnvRegion: "sim-1", EnvURL: "http://127.0.0.1:1/v4"}},
		{"default URL", "", DefaultURL, map[string]string{EnvToken: "t", EnvRegion: "sim-1"}},
		{"no token", EnvToken, "", map[string]string{EnvRegion: "sim-1"}},
		{"no region", EnvRegion, "", map[string]string{EnvToken: "t"}},
		{"relative URL", EnvURL, "", map[string]string{EnvToken: "t", EnvRegion: "r", EnvURL: "/v4"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := LoadConfig(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil || cfg.URL != tc.wantURL {
				t.Fatalf("LoadConfig = %+v, %v", cfg, err)
			}
		})
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
