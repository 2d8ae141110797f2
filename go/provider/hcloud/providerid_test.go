package hcloud

import "testing"

func TestProviderIDRoundTrip(t *testing.T) {
	cases := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{in: "hcloud://42", want: 42},
		{in: "hcloud://9007199254740993", want: 9007199254740993},
		{in: "hcloud://", wantErr: true},
		{in: "hcloud://0", wantErr: true},
		{in: "hcloud://-3", wantErr: true},
		{in: "hcloud://042", wantErr: true},
		{in: "hcloud://srv-1", wantErr: true},
		{in: "hrobot://42", wantErr: true},
		{in: "simcloud://42", wantErr: true},
		{in: "42", wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := serverIDFromProviderID(tc.in)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("serverIDFromProviderID(%q) = %d, %v; want %d, error %v", tc.in, got, err, tc.want, tc.wantErr)
			}
			if err == nil && providerID(got) != tc.in {
				t.Fatalf("providerID(%d) = %q, want %q", got, providerID(got), tc.in)
			}
		})
	}
}
