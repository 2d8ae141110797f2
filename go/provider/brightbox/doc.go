// Package brightbox is the upstream Go CCM's --cloud-provider=brightbox, on gobrightbox v2, for simcloud's
// Brightbox persona. It behaves as Brightbox's own CCM does: nodes are servers (brightbox://srv-…, the server
// type's handle as instance type, the zone handle as zone and what precedes its last dash as region, every
// interface and cloud IP address an ExternalIP), and a LoadBalancer Service gets, all named
// <service>.<namespace>.<cluster>, a cloud IP, a load balancer (one listener per port, to the NodePorts, with
// its health check) with the cloud IP mapped to it, a server group of the nodes' servers and a firewall policy
// on that group opening the NodePorts. There are no routes.
//
// One difference: Brightbox's CCM writes the cloud IP's DNS names as the Service's ingress; this provider writes
// its address, since the sandbox has no DNS for those names (the persona names every cloud IP localhost).
package brightbox
