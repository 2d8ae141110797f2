package providerkit

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/names"
)

var _ cloudprovider.InstancesV2 = (*Instances[struct{}])(nil)

// Instances is the InstancesV2 of a provider from what differs between clouds: how a node's machine (M: a
// server, a droplet) is found, when it is off and what it reports. Every error names the provider, the
// method and the node.
type Instances[M any] struct {
	Provider string
	// Attribute, when set, marks ctx with who is calling before any cloud call (the cloud's caller headers).
	Attribute func(ctx context.Context, node *v1.Node, call Call) context.Context
	// Find returns the node's machine: by providerID when the node has one, else by name; nil only when
	// the cloud says it does not exist, as the lifecycle controller deletes the Node then.
	Find func(ctx context.Context, node *v1.Node) (*M, error)
	// Off reports a machine that is shut down.
	Off func(*M) bool
	// Metadata describes a machine.
	Metadata func(ctx context.Context, m *M) (*cloudprovider.InstanceMetadata, error)
}

// Call is who makes a cloud call: the controller and the cloud-provider method it called.
type Call struct{ Controller, Method string }

// find is Find for call, with the node in its error.
func (i *Instances[M]) find(ctx context.Context, node *v1.Node, call Call) (context.Context, *M, error) {
	if i.Attribute != nil {
		ctx = i.Attribute(ctx, node, call)
	}
	m, err := i.Find(ctx, node)
	if err != nil {
		return ctx, nil, fmt.Errorf("node %s: %w", node.Name, err)
	}
	return ctx, m, nil
}

// InstanceExists is false only when the cloud says the node's machine does not exist.
func (i *Instances[M]) InstanceExists(ctx context.Context, node *v1.Node) (_ bool, err error) {
	defer Wrap(&err, i.Provider, "InstanceExists")
	_, m, err := i.find(ctx, node, Call{names.CloudNodeLifecycleController, "InstanceExists"})
	return m != nil, err
}

// InstanceShutdown is true for a machine that is off.
func (i *Instances[M]) InstanceShutdown(ctx context.Context, node *v1.Node) (_ bool, err error) {
	defer Wrap(&err, i.Provider, "InstanceShutdown")
	_, m, err := i.find(ctx, node, Call{names.CloudNodeLifecycleController, "InstanceShutdown"})
	return m != nil && i.Off(m), err
}

// InstanceMetadata describes the node's machine; a missing one is cloudprovider.InstanceNotFound.
func (i *Instances[M]) InstanceMetadata(ctx context.Context, node *v1.Node) (_ *cloudprovider.InstanceMetadata, err error) {
	defer Wrap(&err, i.Provider, "InstanceMetadata")
	ctx, m, err := i.find(ctx, node, Call{names.CloudNodeController, "InstanceMetadata"})
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, cloudprovider.InstanceNotFound
	}
	md, err := i.Metadata(ctx, m)
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", node.Name, err)
	}
	return md, nil
}
