package simcloud

import (
	"cmp"
	"fmt"
	"net/netip"
	"sync"

	"ccm-sandbox/go/provider/simcloud/client"
)

var _ strategy = (*ipBlockStrategy)(nil)

// IP blocks of strategy ip-block: a /29 per Service, tagged phoenixNAP style, whose third address the load
// balancer takes as VIP.
const (
	ipBlockSize  = 29
	ipBlockUsage = "simcloud-ccm-auto"
	regionLabel  = "topology.kubernetes.io/region"
)

// ipBlockStrategy is strategy "ip-block" (phoenixNAP style): one IP block per Service gives the VIP, the
// load balancer targets the nodes' servers directly and enforces the source ranges itself.
type ipBlockStrategy struct {
	mu sync.Mutex
	// blocks maps a Service UID to the block this process allocated or found: a list may not show a new
	// block yet, and blocks have no unique name that would make a second allocation fail.
	blocks map[string]string
}

// adoptID is empty: with this strategy the load-balancer-id annotation names an IP block, not a load balancer.
func (*ipBlockStrategy) adoptID(lbConfig) string { return "" }

func (s *ipBlockStrategy) known(op lbCall) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.blocks[string(op.svc.UID)]
}

func (s *ipBlockStrategy) remember(op lbCall, blockID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if blockID == "" {
		delete(s.blocks, string(op.svc.UID))
		return
	}
	s.blocks[string(op.svc.UID)] = blockID
}

func (s *ipBlockStrategy) ensure(op lbCall, want wanted) (*client.LoadBalancer, error) {
	block, err := s.ensureIPBlock(op, want)
	if err != nil {
		return nil, err
	}
	s.remember(op, block.ID)
	spec := want.plan.spec(serverTargets(want.serverIDs), true)
	existing, err := op.findLoadBalancer("")
	if err != nil {
		return nil, err
	}
	if existing != nil {
		return op.reconcileLoadBalancer(existing, spec, blockVIP(block.CIDR))
	}
	return op.createLoadBalancer(spec, block.ID, block.Location)
}

func serverTargets(ids []string) []client.LoadBalancerTarget {
	targets := make([]client.LoadBalancerTarget, 0, len(ids))
	for _, id := range ids {
		targets = append(targets, client.LoadBalancerTarget{Kind: client.TargetServer, ServerID: id})
	}
	return targets
}

func (s *ipBlockStrategy) update(op lbCall, serverIDs []string) error {
	lb, err := op.findLoadBalancer("")
	if err != nil {
		return err
	}
	if lb == nil {
		return fmt.Errorf("UpdateLoadBalancer: no load balancer for service %s yet", serviceKey(op.svc))
	}
	spec := currentSpec(lb)
	spec.targets = serverTargets(serverIDs)
	_, err = op.reconcileLoadBalancer(lb, spec, "")
	return err
}

func (s *ipBlockStrategy) others(op lbCall) (bool, error) {
	block, err := s.findIPBlock(op)
	return block != nil, err
}

// deleteOthers unassigns and releases the block; both tolerate not_found.
func (s *ipBlockStrategy) deleteOthers(op lbCall) error {
	block, err := s.findIPBlock(op)
	if err != nil || block == nil {
		s.remember(op, "")
		return err
	}
	if block.AssignedTo != nil {
		if _, err := op.c.UnassignIPBlock(op.ctx, block.ID); err != nil && !client.IsNotFound(err) {
			return err
		}
	}
	if err := op.c.ReleaseIPBlock(op.ctx, block.ID); err != nil && !client.IsNotFound(err) {
		return err
	}
	s.remember(op, "")
	return nil
}

func ipBlockTags(op lbCall) map[string]string {
	return map[string]string{
		"usage": ipBlockUsage, "cluster": op.cluster, "service": fit(op.svc.Namespace+"."+op.svc.Name, 63), "service-uid": string(op.svc.UID),
	}
}

// findIPBlock is the Service's block by tags, else the one this process remembers for it.
func (s *ipBlockStrategy) findIPBlock(op lbCall) (*client.IPBlock, error) {
	uid := string(op.svc.UID)
	blocks, err := op.c.ListAllIPBlocks(op.ctx, map[string]string{"usage": ipBlockUsage, "cluster": op.cluster, "service-uid": uid})
	if err != nil {
		return nil, err
	}
	for i := range blocks {
		if blocks[i].Tags["service-uid"] == uid {
			return &blocks[i], nil
		}
	}
	known := s.known(op)
	if known == "" {
		return nil, nil
	}
	block, err := op.c.GetIPBlock(op.ctx, known)
	if client.IsNotFound(err) || (err == nil && block.Tags["service-uid"] != uid) {
		return nil, nil
	}
	return block, err
}

// ensureIPBlock finds the Service's block, else adopts one by id or by spec.loadBalancerIP, else allocates
// one in the nodes' region; an adopted block is tagged as the Service's.
func (s *ipBlockStrategy) ensureIPBlock(op lbCall, want wanted) (*client.IPBlock, error) {
	block, err := s.findIPBlock(op)
	if err == nil && block == nil && want.cfg.loadBalancerID != "" {
		block, err = op.c.GetIPBlock(op.ctx, want.cfg.loadBalancerID)
		if client.IsNotFound(err) {
			return nil, fmt.Errorf("%s: IP block %s does not exist", AnnotationLoadBalancerID, want.cfg.loadBalancerID)
		}
	}
	if err == nil && block == nil && want.plan.requestedIP != "" {
		block, err = op.selectBlock(want.plan.requestedIP)
	}
	if err != nil {
		return nil, err
	}
	tags := ipBlockTags(op)
	if block == nil {
		location, err := op.location(want)
		if err != nil {
			return nil, err
		}
		return op.c.AllocateIPBlock(op.ctx, client.AllocateIPBlockRequest{
			Location: location, Size: ipBlockSize, Description: "load balancer VIP of " + serviceKey(op.svc), Tags: tags,
		})
	}
	merged, differ := mergedLabels(block.Tags, tags)
	if !differ {
		return block, nil
	}
	return op.c.SetIPBlockTags(op.ctx, block.ID, merged)
}

// location is the nodes' region, else the first region of the catalogue.
func (op lbCall) location(want wanted) (string, error) {
	for _, n := range want.nodes {
		if region := n.Labels[regionLabel]; region != "" {
			return region, nil
		}
	}
	regions, err := op.c.ListRegions(op.ctx)
	if err != nil || len(regions) == 0 {
		return "", fmt.Errorf("no region for the IP block of %s: %w", serviceKey(op.svc), err)
	}
	return regions[0].ID, nil
}

// selectBlock is the project's block whose VIP is ip (spec.loadBalancerIP), unless another Service owns it.
func (op lbCall) selectBlock(ip string) (*client.IPBlock, error) {
	blocks, err := op.c.ListAllIPBlocks(op.ctx, nil)
	if err != nil {
		return nil, err
	}
	addr, _ := netip.ParseAddr(ip)
	var containing *client.IPBlock
	for i := range blocks {
		p, perr := netip.ParsePrefix(blocks[i].CIDR)
		if perr == nil && p.Contains(addr) {
			containing = &blocks[i]
			break
		}
	}
	switch {
	case containing == nil:
		return nil, fmt.Errorf("spec.loadBalancerIP %s of %s is in no IP block of the project", ip, serviceKey(op.svc))
	case blockVIP(containing.CIDR) != ip:
		return nil, fmt.Errorf("spec.loadBalancerIP %s: the VIP of block %s is its third address %s", ip, containing.CIDR, blockVIP(containing.CIDR))
	}
	if owner := containing.Tags["service-uid"]; owner != "" && owner != string(op.svc.UID) {
		return nil, fmt.Errorf("spec.loadBalancerIP %s: block %s belongs to service %s", ip, containing.ID, cmp.Or(containing.Tags["service"], owner))
	}
	return containing, nil
}
