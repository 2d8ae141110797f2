package linode

import (
	"context"
	"fmt"
	"net"
	"strconv"

	"github.com/linode/linodego/v2"
	v1 "k8s.io/api/core/v1"
)

// configFor is the NodeBalancer config of one Service port.
func configFor(p v1.ServicePort, o lbOptions) (linodego.NodeBalancerConfigCreateOptions, error) {
	if p.Protocol != "" && p.Protocol != v1.ProtocolTCP {
		return linodego.NodeBalancerConfigCreateOptions{}, fmt.Errorf("port %d: protocol %s is not supported; NodeBalancers here carry TCP", p.Port, p.Protocol)
	}
	tls, ok := o.ports[p.Port]
	if !ok {
		tls.protocol = o.protocol
	}
	return linodego.NodeBalancerConfigCreateOptions{
		Port: int(p.Port), Protocol: tls.protocol, SSLCert: tls.cert, SSLKey: tls.key, ProxyProtocol: o.proxyProtocol, Algorithm: o.algorithm, Check: o.check, CheckPath: o.checkPath,
		CheckInterval: o.interval, CheckTimeout: o.timeout, CheckAttempts: o.attempts,
	}, nil
}

// nodeLabel fits a node name into Linode's 3 to 32 characters.
func nodeLabel(name string) string {
	if len(name) > 32 {
		name = name[:32]
	}
	for len(name) < 3 {
		name += "-"
	}
	return name
}

// PrivateIPAnnotation is the Node annotation Linode's CCM writes with the instance's private address and
// prefers as the NodeBalancer backend address.
const PrivateIPAnnotation = "node.k8s.linode.com/private-ip"

// backendAddress is where a NodeBalancer reaches the node, as Linode's CCM picks it: the private-ip
// annotation, else the first IPv4 InternalIP.
func backendAddress(n *v1.Node) (string, bool) {
	if ip := n.Annotations[PrivateIPAnnotation]; ip != "" {
		return ip, true
	}
	for _, a := range n.Status.Addresses {
		if a.Type == v1.NodeInternalIP && net.ParseIP(a.Address).To4() != nil {
			return a.Address, true
		}
	}
	return "", false
}

// nodesFor is one backend per node on the Service's NodePort. A node without a private address is an
// error, as with Linode's CCM ("no internal IP found for node"): the service controller then retries,
// where skipping it would leave the NodeBalancer without the node until the next periodic resync (a
// node's addresses arrive just after the providerID that makes the service controller add it).
func nodesFor(nodes []*v1.Node, nodePort int32) ([]linodego.NodeBalancerNodeCreateOptions, error) {
	out := make([]linodego.NodeBalancerNodeCreateOptions, 0, len(nodes))
	for _, n := range nodes {
		ip, ok := backendAddress(n)
		if !ok {
			return nil, fmt.Errorf("no internal IP found for node %s", n.Name)
		}
		address := net.JoinHostPort(ip, strconv.Itoa(int(nodePort)))
		out = append(out, linodego.NodeBalancerNodeCreateOptions{Address: address, Label: nodeLabel(n.Name), Weight: 100, Mode: linodego.ModeAccept})
	}
	return out, nil
}

// reconcile makes the NodeBalancer's configs the Service's ports: each existing port's config is rebuilt
// with the current nodes (keeping the ids of nodes it keeps), new ports get a config, gone ones are deleted.
func (l *loadBalancers) reconcile(ctx context.Context, nbID int, svc *v1.Service, nodes []*v1.Node, o lbOptions) error {
	current, err := l.client.ListNodeBalancerConfigs(ctx, nbID, nil)
	if err != nil {
		return err
	}
	byPort := map[int]linodego.NodeBalancerConfig{}
	for _, c := range current {
		byPort[c.Port] = c
	}
	for _, p := range svc.Spec.Ports {
		want, err := configFor(p, o)
		if err != nil {
			return err
		}
		backends, err := nodesFor(nodes, p.NodePort)
		if err != nil {
			return err
		}
		if err := l.ensureConfig(ctx, nbID, byPort, want, backends); err != nil {
			return err
		}
		delete(byPort, int(p.Port))
	}
	for _, gone := range byPort {
		if err := l.client.DeleteNodeBalancerConfig(ctx, nbID, gone.ID); err != nil && !linodego.IsNotFound(err) {
			return err
		}
	}
	return nil
}

func (l *loadBalancers) ensureConfig(ctx context.Context, nbID int, byPort map[int]linodego.NodeBalancerConfig, want linodego.NodeBalancerConfigCreateOptions, nodes []linodego.NodeBalancerNodeCreateOptions) error {
	existing, ok := byPort[want.Port]
	if !ok {
		want.Nodes = nodes
		_, err := l.client.CreateNodeBalancerConfig(ctx, nbID, want)
		return err
	}
	old, err := l.client.ListNodeBalancerNodes(ctx, nbID, existing.ID, nil)
	if err != nil {
		return err
	}
	ids := map[string]int{}
	for _, n := range old {
		ids[n.Address] = n.ID
	}
	rebuild := linodego.NodeBalancerConfigRebuildOptions{
		Port: want.Port, Protocol: want.Protocol, SSLCert: want.SSLCert, SSLKey: want.SSLKey, ProxyProtocol: want.ProxyProtocol, Algorithm: want.Algorithm, Check: want.Check, CheckPath: want.CheckPath,
		CheckInterval: want.CheckInterval, CheckTimeout: want.CheckTimeout, CheckAttempts: want.CheckAttempts,
		Nodes: make([]linodego.NodeBalancerConfigRebuildNodeOptions, 0, len(nodes)),
	}
	for _, n := range nodes {
		rebuild.Nodes = append(rebuild.Nodes, linodego.NodeBalancerConfigRebuildNodeOptions{NodeBalancerNodeCreateOptions: n, ID: ids[n.Address]})
	}
	_, err = l.client.RebuildNodeBalancerConfig(ctx, nbID, existing.ID, rebuild)
	return err
}
