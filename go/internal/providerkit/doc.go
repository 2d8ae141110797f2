// Package providerkit holds what every cloudprovider.Interface in this module would otherwise repeat:
//
//   - Register and EnvOnly: the provider registers with one call, giving its name, how its configuration is
//     read and its constructor;
//   - Cloud: the Interface assembled from the capabilities a provider offers;
//   - Reader: typed settings from environment variables or Service annotations, every problem collected
//     and naming its key;
//   - OpError and Wrap: every error a provider returns to the cloud controller manager names the provider
//     and the operation ("hcloud: EnsureLoadBalancer: ...") and keeps its cause for errors.Is and errors.As.
//
// Waiting on an action or a status is package poll, beside this one: it imports only the standard library,
// so the SDK contract-test modules (go/contract/*) use it too.
package providerkit
