// Package digitalocean is the "digitalocean" cloud provider of the upstream Go CCM: k8s.io/cloud-provider's
// InstancesV2 and LoadBalancer over godo, the client DigitalOcean's own CCM uses, configured by the same
// environment (DO_ACCESS_TOKEN, DO_OVERRIDE_URL, REGION) and the service.beta.kubernetes.io/do-loadbalancer-*
// annotations that matter most. Against simcloud it speaks the DigitalOcean dialect under /v2.
package digitalocean
