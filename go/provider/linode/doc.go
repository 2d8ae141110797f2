// Package linode is a cloudprovider.Interface named "linode" on linodego, for simcloud's Linode API v4
// dialect (or any Linode API): providerIDs linode://<instance id>, region and type labels from the instance,
// addresses from its IPs, and LoadBalancer Services as NodeBalancers configured by the most used
// service.beta.kubernetes.io/linode-loadbalancer-* annotations, https ports terminating TLS with the
// kubernetes.io/tls Secret their per-port annotation names (tls.go). It reads LINODE_API_TOKEN, LINODE_URL and
// LINODE_REGION like Linode's own CCM. Routes and zones are not provided.
package linode
