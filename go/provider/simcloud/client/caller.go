package client

import "context"

// Caller names who makes a call: the controller, the object it is reconciling and the cloud-provider method
// it is in. simcloud records it with the call, so its console can explain each request.
type Caller struct {
	// Controller is the upstream controller name, e.g. "service-lb-controller".
	Controller string
	// Key is the object being reconciled: a node name, "<namespace>/<name>" of a Service, or "list".
	Key string
	// Method is the cloud-provider interface method, e.g. "EnsureLoadBalancer".
	Method string
}

type callerKey struct{}

// WithCaller returns a context whose calls are attributed to caller.
func WithCaller(ctx context.Context, caller Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, caller)
}

// CallerFrom returns the caller stored in ctx, if any.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}

// header is the X-Simcloud-Caller value: the controller, then the key when there is one.
func (c Caller) header() string {
	if c.Key == "" {
		return c.Controller
	}
	return c.Controller + " " + c.Key
}
