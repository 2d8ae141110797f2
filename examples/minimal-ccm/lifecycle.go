package main

import (
	"context"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	v1 "k8s.io/api/core/v1"
)

// The cloud-node-lifecycle controller calls these two for a Node that is not Ready (its kubelet stopped
// posting status), every --node-monitor-period.

// InstanceExists: false makes the controller delete the Node, since its machine is gone for good.
func (i *instances) InstanceExists(ctx context.Context, node *v1.Node) (bool, error) {
	server, err := i.serverOf(ctx, node)
	if err != nil {
		return false, err
	}
	return server != nil, nil
}

// InstanceShutdown: true makes the controller add the node.cloudprovider.kubernetes.io/shutdown taint, so
// the Node's pods are known to be stopped rather than lost; it removes the taint once the Node is Ready again.
func (i *instances) InstanceShutdown(ctx context.Context, node *v1.Node) (bool, error) {
	server, err := i.serverOf(ctx, node)
	if err != nil || server == nil {
		return false, err
	}
	return server.Status == hcloud.ServerStatusOff, nil
}
