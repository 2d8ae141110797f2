// Package simcloud is a k8s.io/cloud-provider implementation for simcloud, ccm-sandbox's simulated cloud.
//
// It registers itself as the cloud provider "simcloud" when imported, reads its settings from the same
// environment variables (and optional cloud-config file) as ccm-sandbox's TypeScript CCM, and offers:
//
//   - InstancesV2 (instances.go): a Node is the server named like it, or the one in its providerID
//     "simcloud://<server id>"; metadata carries the server type, zone, region and addresses.
//   - LoadBalancer (load_balancer.go, annotations.go): per Service one load balancer. Strategy "lb"
//     (load_balancer_group.go) targets one server group holding the Service's nodes and applies one
//     firewall policy to it, opening the node ports to the Service's source ranges; strategy "ip-block"
//     (load_balancer_ip_block.go) takes the VIP from an IP block of the Service's own and targets the
//     servers. The loadbalancer.simcloud.dev/* annotations tune both.
//   - Routes (routes.go): pod CIDR routes in one simcloud network, named after the route controller's hint.
//
// Every cloud call carries the calling controller, object and method (see client.WithCaller), so simcloud's
// console explains this CCM's calls as it explains the TypeScript CCM's.
package simcloud
