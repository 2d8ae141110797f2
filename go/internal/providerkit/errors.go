package providerkit

import "errors"

// OpError is an error from one operation of a provider, printed as "provider: Op: cause". Its cause stays
// reachable, so the cloud controller manager still recognises cloudprovider.InstanceNotFound and
// RetryError through it.
type OpError struct {
	Provider string
	Op       string
	Err      error
}

func (e *OpError) Error() string { return e.Provider + ": " + e.Op + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *OpError) Unwrap() error { return e.Err }

// Wrap makes *errp an *OpError of provider and op; nil stays nil, and an error that already names the
// provider (one method calling another) is left as it is, so the provider is named once. Defer it first
// thing in every method the cloud controller manager calls, with a named error result:
//
//	func (l *loadBalancers) EnsureLoadBalancer(...) (_ *v1.LoadBalancerStatus, err error) {
//		defer providerkit.Wrap(&err, ProviderName, "EnsureLoadBalancer")
func Wrap(errp *error, provider, op string) {
	if *errp == nil {
		return
	}
	if e, ok := errors.AsType[*OpError](*errp); ok && e.Provider == provider {
		return
	}
	*errp = &OpError{Provider: provider, Op: op, Err: *errp}
}
