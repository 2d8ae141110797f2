package hcloud

import (
	"context"
	"net/http"

	"ccm-sandbox/go/provider/simcloud/client"
)

// callerTransport sends simcloud's caller headers with every request whose context names a caller (the
// controller, the object and the cloud-provider method), so simcloud's console explains this provider's
// calls as it explains the other CCMs'. Any other Hetzner API ignores the two headers.
type callerTransport struct {
	next http.RoundTripper
}

// RoundTrip adds the headers to a copy of the request (a RoundTripper must not change its argument).
func (t callerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	caller, ok := client.CallerFrom(req.Context())
	if !ok {
		return t.next.RoundTrip(req)
	}
	out := req.Clone(req.Context())
	header := caller.Controller
	if caller.Key != "" {
		header += " " + caller.Key
	}
	out.Header.Set(client.HeaderCaller, header)
	if caller.Method != "" {
		out.Header.Set(client.HeaderMethod, caller.Method)
	}
	return t.next.RoundTrip(out)
}

// withCaller attributes the calls made with ctx to controller, key and method.
func withCaller(ctx context.Context, controller, key, method string) context.Context {
	return client.WithCaller(ctx, client.Caller{Controller: controller, Key: key, Method: method})
}
