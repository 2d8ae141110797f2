package linode

import (
	"net"
	"testing"
	"time"

	"github.com/linode/linodego/v2"
)

func parseIP(s string) net.IP { return net.ParseIP(s) }

// waitStatus polls the instance (as a CCM would) until it has the status; simcloud's transitions take
// tens of milliseconds.
func waitStatus(t *testing.T, id int, want linodego.InstanceStatus) {
	t.Helper()
	c := client(t)
	deadline := time.Now().Add(20 * time.Second)
	for {
		in, err := c.GetInstance(ctx(t), id)
		if err != nil {
			t.Fatal(err)
		}
		if in.Status == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("instance %d is %s, want %s", id, in.Status, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
