package linode

import (
	"fmt"
	"net"
	"testing"

	"github.com/linode/linodego/v2"

	"ccm-sandbox/go/internal/providerkit/poll"
)

func parseIP(s string) net.IP { return net.ParseIP(s) }

// waitStatus polls the instance (as a CCM would) until it has the status; simcloud's transitions take
// tens of milliseconds.
func waitStatus(t *testing.T, id int, want linodego.InstanceStatus) {
	t.Helper()
	c := client(t)
	poll.Eventually(t, fmt.Sprintf("instance %d %s", id, want), func() error {
		in, err := c.GetInstance(ctx(t), id)
		if err == nil && in.Status != want {
			err = fmt.Errorf("status %s", in.Status)
		}
		return err
	})
}
