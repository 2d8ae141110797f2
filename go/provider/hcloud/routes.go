package hcloud

import (
	"cmp"
	"context"
	"fmt"
	"net"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/names"

	"ccm-sandbox/go/internal/providerkit"
)

var _ cloudprovider.Routes = (*routes)(nil)

// routes keeps pod CIDR routes in the configured network: "<pod CIDR> via <node's address in the
// network>". Hetzner routes have no names or ids: a route is known by its destination and gateway, and
// reported under the name "<gateway>-<destination>". A route whose gateway is no server's is a blackhole,
// so the route controller deletes it.
type routes struct {
	client    *hcloud.Client
	networkID int64
}

func (r *routes) network(ctx context.Context) (*hcloud.Network, error) {
	network, _, err := r.client.Network.GetByID(ctx, r.networkID)
	if err != nil || network == nil {
		return nil, fmt.Errorf("reading network %d (%s): %w", r.networkID, EnvNetwork, orNotFound(err))
	}
	return network, nil
}

// ListRoutes returns every route of the network.
func (r *routes) ListRoutes(ctx context.Context, _ string) (_ []*cloudprovider.Route, err error) {
	defer providerkit.Wrap(&err, ProviderName, "ListRoutes")
	ctx = withCaller(ctx, names.NodeRouteController, "list", "ListRoutes")
	network, err := r.network(ctx)
	if err != nil {
		return nil, err
	}
	servers, err := r.client.Server.All(ctx)
	if err != nil {
		return nil, err
	}
	return toRoutes(network, servers), nil
}

// toRoutes maps the network's routes to the controller's shape (pure).
func toRoutes(network *hcloud.Network, servers []*hcloud.Server) []*cloudprovider.Route {
	byIP := map[string]string{}
	for _, s := range servers {
		if ip := privateIPIn(s, network.ID); ip != nil {
			byIP[ip.String()] = s.Name
		}
	}
	out := make([]*cloudprovider.Route, 0, len(network.Routes))
	for _, route := range network.Routes {
		gateway, destination := route.Gateway.String(), route.Destination.String()
		target, ok := byIP[gateway]
		out = append(out, &cloudprovider.Route{
			Name: gateway + "-" + destination, TargetNode: types.NodeName(target), DestinationCIDR: destination, Blackhole: !ok,
		})
	}
	return out
}

// CreateRoute points route.DestinationCIDR at the target node's address in the network, replacing a route
// to the same destination through another gateway.
func (r *routes) CreateRoute(ctx context.Context, _ string, _ string, route *cloudprovider.Route) (err error) {
	defer providerkit.Wrap(&err, ProviderName, "CreateRoute")
	_, destination, err := net.ParseCIDR(route.DestinationCIDR)
	if err != nil || destination.IP.To4() == nil {
		return fmt.Errorf("%q is not an IPv4 CIDR; Hetzner networks route IPv4 only", route.DestinationCIDR)
	}
	ctx = withCaller(ctx, names.NodeRouteController, string(route.TargetNode), "CreateRoute")
	network, err := r.network(ctx)
	if err != nil {
		return err
	}
	gateway, err := r.gatewayFor(ctx, route)
	if err != nil {
		return err
	}
	for _, existing := range network.Routes {
		if existing.Destination.String() != destination.String() {
			continue
		}
		if existing.Gateway.Equal(gateway) {
			return nil
		}
		if err := r.delete(ctx, network, existing); err != nil {
			return err
		}
	}
	a, _, err := r.client.Network.AddRoute(ctx, network, hcloud.NetworkAddRouteOpts{Route: hcloud.NetworkRoute{Destination: destination, Gateway: gateway}})
	if err == nil {
		err = r.client.Action.WaitFor(ctx, a)
	}
	if err != nil {
		return fmt.Errorf("adding route %s via %s (node %s): %w", destination, gateway, route.TargetNode, err)
	}
	return nil
}

// DeleteRoute removes the network's route to route.DestinationCIDR; a missing one is done.
func (r *routes) DeleteRoute(ctx context.Context, _ string, route *cloudprovider.Route) (err error) {
	defer providerkit.Wrap(&err, ProviderName, "DeleteRoute")
	ctx = withCaller(ctx, names.NodeRouteController, cmp.Or(string(route.TargetNode), route.DestinationCIDR), "DeleteRoute")
	network, err := r.network(ctx)
	if err != nil {
		return err
	}
	for _, existing := range network.Routes {
		if existing.Destination.String() == route.DestinationCIDR {
			return r.delete(ctx, network, existing)
		}
	}
	return nil
}

func (r *routes) delete(ctx context.Context, network *hcloud.Network, route hcloud.NetworkRoute) error {
	a, _, err := r.client.Network.DeleteRoute(ctx, network, hcloud.NetworkDeleteRouteOpts{Route: route})
	if hcloud.IsError(err, hcloud.ErrorCodeNotFound) {
		return nil
	}
	if err == nil {
		err = r.client.Action.WaitFor(ctx, a)
	}
	if err != nil {
		return fmt.Errorf("deleting route %s via %s: %w", route.Destination, route.Gateway, err)
	}
	return nil
}

// gatewayFor is the target node's address in the network: from its server (by name), else its InternalIP.
func (r *routes) gatewayFor(ctx context.Context, route *cloudprovider.Route) (net.IP, error) {
	server, _, err := r.client.Server.GetByName(ctx, string(route.TargetNode))
	if err != nil {
		return nil, err
	}
	if server != nil {
		if ip := privateIPIn(server, r.networkID); ip != nil {
			return ip, nil
		}
	}
	for _, a := range route.TargetNodeAddresses {
		if ip := net.ParseIP(a.Address); a.Type == v1.NodeInternalIP && ip != nil && ip.To4() != nil {
			return ip, nil
		}
	}
	return nil, fmt.Errorf("node %s has no address in network %d", route.TargetNode, r.networkID)
}
