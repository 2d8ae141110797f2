package simcloud

import "testing"

func TestFaultyVariantIsOffUnlessNamed(t *testing.T) {
	cases := []struct {
		env  string
		name string
		want bool
	}{
		{"", "rename-on-start", false},
		{"rename-on-start", "rename-on-start", true},
		{"adopt-by-name, rename-on-start", "rename-on-start", true},
		{"rename-on-start-x", "rename-on-start", false},
	}
	for _, c := range cases {
		t.Setenv(EnvFaultyVariants, c.env)
		if got := faultyVariant(c.name); got != c.want {
			t.Errorf("%q with %s=%q: got %v, want %v", c.name, EnvFaultyVariants, c.env, got, c.want)
		}
	}
}
