// Package providerkit holds what every cloudprovider.Interface in this module would otherwise repeat:
//
//   - Register and EnvOnly: a provider registers with one call, giving its name, how its configuration is
//     read and its constructor; Probe and RequestTimeout for the constructor's first call to the API;
//   - Cloud: the Interface assembled from the capabilities a provider offers;
//   - Instances: InstancesV2 from how a cloud finds a node's machine, when it is off and what it reports;
//     MachineIDs and NumericID for the nodes-to-machines mapping of load balancers and providerIDs;
//   - Reader (Env, Annotations) and APIConfig: typed settings from environment variables or Service
//     annotations, every problem collected and naming its key;
//   - OpError and Wrap: every error a provider returns to the cloud controller manager names the provider
//     and the operation ("hcloud: EnsureLoadBalancer: ...") and keeps its cause for errors.Is and errors.As.
//
// Beside it, package poll is the one wait (Until, and Eventually for tests); it imports only the standard
// library, so the SDK contract-test modules (go/contract/*) use it too. Package providertest is the
// contract every provider's tests run (Instances).
package providerkit
