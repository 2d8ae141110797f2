// Package hcloud is a k8s.io/cloud-provider implementation for the Hetzner Cloud API, built on the official
// hcloud-go/v2 client. In ccm-sandbox it runs against simcloud's Hetzner dialect; pointed at any endpoint
// that speaks that API it behaves the same.
//
// It registers itself as the cloud provider "hcloud" when imported, reads the environment variables
// Hetzner's own cloud-controller-manager reads (HCLOUD_ENDPOINT, HCLOUD_TOKEN, HCLOUD_NETWORK,
// HCLOUD_LOAD_BALANCERS_*; see config.go) and offers:
//
//   - InstancesV2 (instances.go, addresses.go): a Node is the server named like it, or the one in its
//     providerID "hcloud://<numeric server id>"; instance type = server type name, zone = the datacenter
//     of the server's location, region = location name; a powered-off server is shut down.
//   - LoadBalancer (load_balancer*.go, annotations.go): per Service one Hetzner load balancer, found by
//     the label hcloud-ccm/service-uid, with one service per Service port, server targets for the nodes and
//     the load-balancer.hetzner.cloud/* annotations.
//   - Routes (routes.go): pod CIDR routes in the network named by HCLOUD_NETWORK, through its
//     add_route/delete_route actions.
//
// Every call carries the calling controller, object and method in simcloud's caller headers (caller.go), so
// simcloud's console explains this CCM's calls as it explains the others'.
package hcloud
