// Package phoenixnap is the upstream Go CCM's --cloud-provider=phoenixnap, on go-sdk-bmc, for simcloud's
// phoenixNAP persona: nodes are BMC servers (InstancesV2), and a LoadBalancer Service gets phoenixNAP's IP-block
// strategy: a /29 IP block per Service, tagged as phoenixNAP's CCM tags it, whose third address is the Service's
// ingress. phoenixNAP has no load balancers (its CCM leaves the address to kube-vip); here the block's traffic is
// carried as simcloud's native ip-block strategy carries it, by a simcloud load balancer on the block (/v1).
package phoenixnap
