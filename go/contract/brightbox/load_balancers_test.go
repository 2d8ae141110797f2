package brightbox

import (
	"context"
	"net/http"
	"testing"

	brightbox "github.com/brightbox/gobrightbox/v2"
	"github.com/brightbox/gobrightbox/v2/enums/balancingpolicy"
	"github.com/brightbox/gobrightbox/v2/enums/healthchecktype"
	"github.com/brightbox/gobrightbox/v2/enums/listenerprotocol"
	"github.com/brightbox/gobrightbox/v2/enums/proxyprotocol"

	"ccm-sandbox/go/internal/providerkit/poll"
	"ccm-sandbox/go/internal/simcloudtest"
)

// createLB makes a load balancer with opts and destroys it when the test ends.
func createLB(t *testing.T, c *brightbox.Client, opts brightbox.LoadBalancerOptions) *brightbox.LoadBalancer {
	t.Helper()
	if opts.Name == nil {
		opts.Name = ptr(simcloudtest.UniqueName("lba"))
	}
	lb := simcloudtest.Must(c.CreateLoadBalancer(ctx(t), opts)).Get(t)
	t.Cleanup(func() {
		goneOr404(t, "load balancer "+lb.ID,
			func(ctx context.Context) error { _, err := c.LoadBalancer(ctx, lb.ID); return err },
			func(ctx context.Context) error { _, err := c.DestroyLoadBalancer(ctx, lb.ID); return err })
	})
	return lb
}

// waitLB polls a load balancer until its status is want (Brightbox builds load balancers asynchronously).
func waitLB(t *testing.T, c *brightbox.Client, id, want string) *brightbox.LoadBalancer {
	t.Helper()
	var lb *brightbox.LoadBalancer
	poll.Eventually(t, "load balancer "+id+" "+want, func() error {
		var err error
		lb, err = c.LoadBalancer(ctx(t), id)
		return poll.Returns(want)(statusOf(lb), err)
	})
	return lb
}

func statusOf(lb *brightbox.LoadBalancer) string {
	if lb == nil {
		return ""
	}
	return lb.Status.String()
}

// A load balancer as Brightbox's CCM makes one: listeners with timeouts and PROXY protocol, an HTTP health
// check, a policy, a buffer size and nodes; it is creating at first, active once built, and shows what was asked.
func TestALoadBalancerIsCreatingThenActive(t *testing.T) {
	c := connect(t)
	node := createServer(t, c)
	lb := createLB(t, c, brightbox.LoadBalancerOptions{
		Nodes: []brightbox.LoadBalancerNode{{Node: node.ID}}, Policy: balancingpolicy.RoundRobin,
		Listeners: []brightbox.LoadBalancerListener{
			{Protocol: listenerprotocol.Tcp, In: 80, Out: 30080, Timeout: 30000, ProxyProtocol: proxyprotocol.V1},
			{Protocol: listenerprotocol.Http, In: 8080, Out: 30081},
		},
		Healthcheck: &brightbox.LoadBalancerHealthcheck{Type: healthchecktype.Http, Port: 30080, Request: "/healthz", Interval: 1000, Timeout: 1000, ThresholdUp: 2, ThresholdDown: 2},
	})
	if lb.Status.String() != "creating" {
		t.Errorf("at create: %s", lb.Status)
	}
	got := waitLB(t, c, lb.ID, "active")
	if got.Policy != balancingpolicy.RoundRobin || got.BufferSize != 4096 || len(got.Nodes) != 1 || got.Nodes[0].ID != node.ID {
		t.Errorf("load balancer %+v", got)
	}
	want := []brightbox.LoadBalancerListener{
		{Protocol: listenerprotocol.Tcp, In: 80, Out: 30080, Timeout: 30000, ProxyProtocol: proxyprotocol.V1},
		{Protocol: listenerprotocol.Http, In: 8080, Out: 30081, Timeout: 50000},
	}
	if len(got.Listeners) != 2 || got.Listeners[0] != want[0] || got.Listeners[1] != want[1] {
		t.Errorf("listeners %+v, want %+v", got.Listeners, want)
	}
	if h := got.Healthcheck; h.Type != healthchecktype.Http || h.Request != "/healthz" || h.Interval != 1000 || h.ThresholdUp != 2 || h.ThresholdDown != 2 {
		t.Errorf("health check %+v", h)
	}
	if !containsID(simcloudtest.Must(c.LoadBalancers(ctx(t))).Get(t), lb.ID, func(x brightbox.LoadBalancer) string { return x.ID }) {
		t.Errorf("%s not listed", lb.ID)
	}
}

// Updates replace what they give and keep the rest, as Brightbox's CCM relies on when it updates listeners,
// health check or nodes alone.
func TestLoadBalancerUpdates(t *testing.T) {
	c := connect(t)
	a, b := createServer(t, c), createServer(t, c)
	lb := createLB(t, c, brightbox.LoadBalancerOptions{
		Nodes: []brightbox.LoadBalancerNode{{Node: a.ID}}, Listeners: []brightbox.LoadBalancerListener{{Protocol: listenerprotocol.Tcp, In: 443, Out: 30443}},
		Healthcheck: &brightbox.LoadBalancerHealthcheck{Type: healthchecktype.Tcp, Port: 30443},
	})
	waitLB(t, c, lb.ID, "active")
	for _, tc := range []struct {
		name  string
		opts  brightbox.LoadBalancerOptions
		check func(*brightbox.LoadBalancer) bool
	}{
		{"nodes", brightbox.LoadBalancerOptions{Nodes: []brightbox.LoadBalancerNode{{Node: a.ID}, {Node: b.ID}}},
			func(lb *brightbox.LoadBalancer) bool { return len(lb.Nodes) == 2 && len(lb.Listeners) == 1 }},
		{"listeners", brightbox.LoadBalancerOptions{Listeners: []brightbox.LoadBalancerListener{{Protocol: listenerprotocol.Tcp, In: 443, Out: 30444, ProxyProtocol: proxyprotocol.V2}}},
			func(lb *brightbox.LoadBalancer) bool {
				return len(lb.Listeners) == 1 && lb.Listeners[0].Out == 30444 && lb.Listeners[0].ProxyProtocol == proxyprotocol.V2 && len(lb.Nodes) == 2
			}},
		{"health check", brightbox.LoadBalancerOptions{Healthcheck: &brightbox.LoadBalancerHealthcheck{Type: healthchecktype.Http, Port: 30444, Request: "/ready"}},
			func(lb *brightbox.LoadBalancer) bool {
				return lb.Healthcheck.Type == healthchecktype.Http && lb.Healthcheck.Request == "/ready" && lb.Listeners[0].Out == 30444
			}},
		{"name", brightbox.LoadBalancerOptions{Name: ptr("renamed")},
			func(lb *brightbox.LoadBalancer) bool {
				return lb.Name == "renamed" && lb.Healthcheck.Request == "/ready"
			}},
		{"policy", brightbox.LoadBalancerOptions{Policy: balancingpolicy.SourceAddress},
			func(lb *brightbox.LoadBalancer) bool { return lb.Policy == balancingpolicy.SourceAddress }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.ID = lb.ID
			got := simcloudtest.Must(c.UpdateLoadBalancer(ctx(t), tc.opts)).Get(t)
			if !tc.check(got) {
				t.Errorf("answer %+v", got)
			}
			if again := simcloudtest.Must(c.LoadBalancer(ctx(t), lb.ID)).Get(t); !tc.check(again) {
				t.Errorf("read back %+v", again)
			}
		})
	}
}

// What the persona does not emulate is refused naming the field: certificates, ACME domains, and a load balancer
// without a name (simcloud names every one).
func TestCertificatesAreRefused(t *testing.T) {
	refuses(t, (*brightbox.Client).CreateLoadBalancer, []badRequest[brightbox.LoadBalancerOptions]{
		{"certificate", brightbox.LoadBalancerOptions{Name: ptr("x"), CertificatePem: ptr("-----BEGIN"), CertificatePrivateKey: ptr("-----BEGIN")}, "certificate_pem: "},
		{"acme", brightbox.LoadBalancerOptions{Name: ptr("x"), Domains: &[]string{"example.com"}}, "domains: "},
		{"no name", brightbox.LoadBalancerOptions{Listeners: []brightbox.LoadBalancerListener{{Protocol: listenerprotocol.Tcp, In: 80, Out: 80}}}, "name: "},
	})
}

// gobrightbox v2.2.2 reads a load balancer's buffer size but its options cannot set it; the API takes it in the
// same body (sent here with the SDK's own authorized HTTP client), within 1024..16384 bytes.
func TestBufferSize(t *testing.T) {
	c := connect(t)
	lb := createLB(t, c, brightbox.LoadBalancerOptions{Listeners: []brightbox.LoadBalancerListener{{Protocol: listenerprotocol.Http, In: 80, Out: 30080}}})
	if lb.BufferSize != 4096 {
		t.Errorf("default buffer size %d", lb.BufferSize)
	}
	for _, tc := range []struct {
		size   int
		status int
		want   uint
	}{{8192, http.StatusAccepted, 8192}, {512, http.StatusBadRequest, 8192}, {32768, http.StatusBadRequest, 8192}} {
		code, body := send(t, c, "PUT", "load_balancers/"+lb.ID, map[string]any{"buffer_size": tc.size})
		if code != tc.status {
			t.Errorf("buffer_size %d: HTTP %d %s", tc.size, code, body)
		}
		if got := simcloudtest.Must(c.LoadBalancer(ctx(t), lb.ID)).Get(t); got.BufferSize != tc.want {
			t.Errorf("after %d: buffer size %d", tc.size, got.BufferSize)
		}
	}
}
