package providerkit

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

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
	// ByProviderID finds the machine of a node that has a providerID (one of another cloud is an error),
	// ByName that of a node without one. Each returns nil only when the cloud says there is no such
	// machine, as the lifecycle controller deletes the Node then.
	ByProviderID func(ctx context.Context, providerID string) (*M, error)
	ByName       func(ctx context.Context, name string) (*M, error)
	// Missing, when set, tells the error of ByProviderID that says there is no such machine (an HTTP
	// 404): that machine is nil.
	Missing func(error) bool
	// Off reports a machine that is shut down.
	Off func(*M) bool
	// Metadata describes a machine.
	Metadata func(ctx context.Context, m *M) (*cloudprovider.InstanceMetadata, error)
}

// Call is who makes a cloud call: the controller and the cloud-provider method it called.
type Call struct{ Controller, Method string }

// find is the node's machine, looked up for call, with the node in its error.
func (i *Instances[M]) find(ctx context.Context, node *v1.Node, call Call) (context.Context, *M, error) {
	if i.Attribute != nil {
		ctx = i.Attribute(ctx, node, call)
	}
	var m *M
	var err error
	if node.Spec.ProviderID != "" {
		m, err = i.ByProviderID(ctx, node.Spec.ProviderID)
		if err != nil && i.Missing != nil && i.Missing(err) {
			return ctx, nil, nil
		}
	} else {
		// Missing does not apply: a list that answers 404 is a wrong URL, not a missing machine.
		m, err = i.ByName(ctx, node.Name)
	}
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

// NumericID returns the id in "<provider>://<id>" or a bare "<id>", a positive whole number, as the
// clouds whose machines have numeric ids (Linode, DigitalOcean) write their providerIDs.
func NumericID(provider, providerID string) (int, error) {
	id, err := strconv.Atoi(strings.TrimPrefix(providerID, provider+"://"))
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("providerID %q is not %s://<id>", providerID, provider)
	}
	return id, nil
}

// MachineIDs are the ids of the nodes' machines, sorted, each once: parsed from the providerIDs that start
// with prefix (a malformed one is an error), and for nodes without a providerID, by name from byName, one
// listing of every machine, called only when needed. Nodes of another provider are skipped.
func MachineIDs[ID cmp.Ordered](nodes []*v1.Node, prefix string, parse func(providerID string) (ID, error), byName func() (map[string]ID, error)) ([]ID, error) {
	seen := map[ID]bool{}
	var unresolved []string
	for _, node := range nodes {
		switch pid := node.Spec.ProviderID; {
		case strings.HasPrefix(pid, prefix):
			id, err := parse(pid)
			if err != nil {
				return nil, err
			}
			seen[id] = true
		case pid == "":
			unresolved = append(unresolved, node.Name)
		}
	}
	if len(unresolved) > 0 {
		ids, err := byName()
		if err != nil {
			return nil, err
		}
		for _, name := range unresolved {
			if id, ok := ids[name]; ok {
				seen[id] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen)), nil
}
