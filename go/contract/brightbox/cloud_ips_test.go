package brightbox

import (
	"context"
	"net/http"
	"testing"

	brightbox "github.com/brightbox/gobrightbox/v2"
	"github.com/brightbox/gobrightbox/v2/enums/listenerprotocol"

	"ccm-sandbox/go/internal/simcloudtest"
)

// createCloudIP makes a cloud IP named name and destroys it (unmapped first) when the test ends.
func createCloudIP(t *testing.T, c *brightbox.Client, name string) *brightbox.CloudIP {
	t.Helper()
	cip := simcloudtest.Must(c.CreateCloudIP(ctx(t), brightbox.CloudIPOptions{Name: &name})).Get(t)
	t.Cleanup(func() {
		_, _ = c.UnMapCloudIP(context.Background(), cip.ID)
		_, _ = c.DestroyCloudIP(context.Background(), cip.ID)
	})
	return cip
}

// A cloud IP mapped to a load balancer, as Brightbox's CCM does for a Service's ingress: both sides show the
// mapping; unmapping undoes it; an unmapped cloud IP can be destroyed.
func TestACloudIPMapsToALoadBalancer(t *testing.T) {
	c := connect(t)
	lb := createLB(t, c, brightbox.LoadBalancerOptions{Listeners: []brightbox.LoadBalancerListener{{Protocol: listenerprotocol.Http, In: 80, Out: 30080}}})
	waitLB(t, c, lb.ID, "active")
	cip := createCloudIP(t, c, "svc.default.cluster")
	if cip.Status.String() != "unmapped" || cip.PublicIPv4 == "" || cip.PublicIP != cip.PublicIPv4 || cip.Name != "svc.default.cluster" || cip.Mode.String() != "nat" {
		t.Fatalf("created %+v", cip)
	}
	mapped := simcloudtest.Must(c.MapCloudIP(ctx(t), cip.ID, brightbox.CloudIPAttachment{Destination: lb.ID})).Get(t)
	if mapped.Status.String() != "mapped" || mapped.LoadBalancer == nil || mapped.LoadBalancer.ID != lb.ID {
		t.Fatalf("mapped %+v", mapped)
	}
	got := simcloudtest.Must(c.LoadBalancer(ctx(t), lb.ID)).Get(t)
	if len(got.CloudIPs) != 1 || got.CloudIPs[0].ID != cip.ID || got.CloudIPs[0].PublicIPv4 != cip.PublicIPv4 {
		t.Fatalf("load balancer's cloud IPs %+v", got.CloudIPs)
	}
	if !containsID(simcloudtest.Must(c.CloudIPs(ctx(t))).Get(t), cip.ID, func(x brightbox.CloudIP) string { return x.ID }) {
		t.Errorf("%s not listed", cip.ID)
	}
	un := simcloudtest.Must(c.UnMapCloudIP(ctx(t), cip.ID)).Get(t)
	if un.Status.String() != "unmapped" || un.LoadBalancer != nil {
		t.Fatalf("unmapped %+v", un)
	}
	if got := simcloudtest.Must(c.LoadBalancer(ctx(t), lb.ID)).Get(t); len(got.CloudIPs) != 0 {
		t.Errorf("still on the load balancer: %+v", got.CloudIPs)
	}
	simcloudtest.Must(c.DestroyCloudIP(ctx(t), cip.ID)).Get(t)
	_, err := c.CloudIP(ctx(t), cip.ID)
	apiError(t, err, http.StatusNotFound)
}

// Destroying a load balancer unmaps its cloud IPs.
func TestDestroyingALoadBalancerUnmapsItsCloudIP(t *testing.T) {
	c := connect(t)
	lb := createLB(t, c, brightbox.LoadBalancerOptions{Listeners: []brightbox.LoadBalancerListener{{Protocol: listenerprotocol.Http, In: 80, Out: 30080}}})
	waitLB(t, c, lb.ID, "active")
	cip := createCloudIP(t, c, simcloudtest.UniqueName("cip"))
	simcloudtest.Must(c.MapCloudIP(ctx(t), cip.ID, brightbox.CloudIPAttachment{Destination: lb.ID})).Get(t)
	out := simcloudtest.Must(c.DestroyLoadBalancer(ctx(t), lb.ID)).Get(t)
	if out.Status.String() != "deleting" && out.Status.String() != "deleted" {
		t.Errorf("destroy answered %s", out.Status)
	}
	goneOr404(t, "load balancer "+lb.ID, func(ctx context.Context) error { _, err := c.LoadBalancer(ctx, lb.ID); return err }, nil)
	if got := simcloudtest.Must(c.CloudIP(ctx(t), cip.ID)).Get(t); got.Status.String() != "unmapped" || got.LoadBalancer != nil {
		t.Errorf("cloud IP %+v", got)
	}
}

// Mapping to something that does not exist names the destination; what the persona does not emulate (reverse
// DNS, port translators) is refused naming the field.
func TestCloudIPErrors(t *testing.T) {
	c := connect(t)
	cip := createCloudIP(t, c, simcloudtest.UniqueName("cip"))
	for _, tc := range []struct {
		name   string
		call   func() error
		status int
		field  string
	}{
		{"missing load balancer", func() error {
			_, err := c.MapCloudIP(ctx(t), cip.ID, brightbox.CloudIPAttachment{Destination: "lba-zzzzz"})
			return err
		}, http.StatusNotFound, "destination: "},
		{"reverse DNS", func() error {
			_, err := c.CreateCloudIP(ctx(t), brightbox.CloudIPOptions{ReverseDNS: ptr("x.example.com")})
			return err
		}, http.StatusBadRequest, "reverse_dns: "},
		{"port translators", func() error {
			_, err := c.CreateCloudIP(ctx(t), brightbox.CloudIPOptions{PortTranslators: []brightbox.PortTranslator{{Incoming: 80, Outgoing: 8080}}})
			return err
		}, http.StatusBadRequest, "port_translators: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if e := apiError(t, tc.call(), tc.status); !hasPrefix(e.Errors, tc.field) {
				t.Fatalf("%q %q", e.ErrorName, e.Errors)
			}
		})
	}
}

// A cloud IP can also be mapped to a server: it reads mapped, naming the server (the persona first showed it
// unmapped), and the server lists it (Brightbox's CCM writes it as an ExternalIP).
func TestACloudIPMapsToAServer(t *testing.T) {
	c := connect(t)
	s := createServer(t, c)
	cip := createCloudIP(t, c, simcloudtest.UniqueName("cip"))
	mapped := simcloudtest.Must(c.MapCloudIP(ctx(t), cip.ID, brightbox.CloudIPAttachment{Destination: s.ID})).Get(t)
	if mapped.Status.String() != "mapped" || mapped.Server == nil || mapped.Server.ID != s.ID || mapped.LoadBalancer != nil {
		t.Errorf("mapped %+v (server %+v)", mapped, mapped.Server)
	}
	if again := simcloudtest.Must(c.CloudIP(ctx(t), cip.ID)).Get(t); again.Status.String() != "mapped" || again.Server == nil {
		t.Errorf("read back %+v", again)
	}
	got := simcloudtest.Must(c.Server(ctx(t), s.ID)).Get(t)
	if len(got.CloudIPs) != 1 || got.CloudIPs[0].ID != cip.ID || got.CloudIPs[0].PublicIP != cip.PublicIP {
		t.Fatalf("server's cloud IPs %+v", got.CloudIPs)
	}
	if un := simcloudtest.Must(c.UnMapCloudIP(ctx(t), cip.ID)).Get(t); un.Status.String() != "unmapped" || un.Server != nil {
		t.Fatalf("unmapped %+v", un)
	}
	if got := simcloudtest.Must(c.Server(ctx(t), s.ID)).Get(t); len(got.CloudIPs) != 0 {
		t.Errorf("still on the server: %+v", got.CloudIPs)
	}
}
