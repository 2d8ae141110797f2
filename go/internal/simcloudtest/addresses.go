package simcloudtest

import "net"

// PresentedAs reports whether presented, an address of the /16 block a persona shows its private addresses
// in (e.g. 10.0.0.0/16), stands for stored, simcloud's loopback address: the same offset in the /16 holding
// the private pool, i.e. the same last two octets (ADR 0013).
func PresentedAs(block, presented, stored string) bool {
	_, b, err := net.ParseCIDR(block)
	p, s := net.ParseIP(presented).To4(), net.ParseIP(stored).To4()
	if err != nil || p == nil || s == nil || !s.IsLoopback() || !b.Contains(p) {
		return false
	}
	return p[2] == s[2] && p[3] == s[3]
}
