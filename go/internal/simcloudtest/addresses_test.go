package simcloudtest

import "testing"

func TestPresentedAs(t *testing.T) {
	for _, c := range []struct {
		block, presented, stored string
		want                     bool
	}{
		{"10.0.0.0/16", "10.0.3.7", "127.10.3.7", true},
		{"10.110.0.0/16", "10.110.200.2", "127.23.200.2", true},
		{"10.0.0.0/16", "10.0.3.8", "127.10.3.7", false},
		{"10.0.0.0/16", "10.1.3.7", "127.10.3.7", false},
		{"10.0.0.0/16", "10.0.3.7", "10.0.3.7", false},
		{"10.0.0.0/16", "", "127.10.3.7", false},
	} {
		if got := PresentedAs(c.block, c.presented, c.stored); got != c.want {
			t.Errorf("PresentedAs(%s, %s, %s) = %v, want %v", c.block, c.presented, c.stored, got, c.want)
		}
	}
}
