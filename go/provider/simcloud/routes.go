package simcloud

import (
	"context"
	"fmt"
	"regexp"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/names"

	"ccm-sandbox/go/provider/simcloud/client"

	"ccm-sandbox/go/internal/providerkit"
)

var _ cloudprovider.Routes = (*routes)(nil)

// routes keeps pod CIDR routes in one simcloud network: "<pod CIDR> via <node's private IP>". A route is
// named after the route controller's hint (the Node UID) and reported under that name (its id when it has
// none); its node is found again from the gateway. A route whose gateway is no server's is reported as a
// blackhole, so the route controller deletes it.
type routes struct {
	client *client.Client
	// network is the configured id or name; networkID caches what it resolved to.
	network   string
	mu        sync.Mutex
	networkID string
}

var (
	idLike    = regexp.MustCompile(`^[a-z]{2,5}-[A-Za-z0-9]{1,40}$`)
	routeName = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$`)
)

func routeCaller(ctx context.Context, key, method string) context.Context {
	return client.WithCaller(ctx, client.Caller{Controller: names.NodeRouteController, Key: key, Method: method})
}

// ListRoutes returns every route of the network.
func (r *routes) ListRoutes(ctx context.Context, _ string) (_ []*cloudprovider.Route, err error) {
	defer providerkit.Wrap(&err, ProviderName, "ListRoutes")
	ctx = routeCaller(ctx, "list", "ListRoutes")
	network, err := r.getNetwork(ctx)
	if err != nil {
		return nil, err
	}
	servers, err := r.client.ListAllServers(ctx, client.ListOpts{})
	if err != nil {
		return nil, err
	}
	return toRoutes(network, servers), nil
}

// toRoutes maps the network's routes to the controller's shape (pure).
func toRoutes(network *client.Network, servers []client.Server) []*cloudprovider.Route {
	byIP := map[string]string{}
	for i := range servers {
		if ip := privateIPIn(&servers[i], network.ID); ip != "" {
			byIP[ip] = servers[i].Name
		}
	}
	out := make([]*cloudprovider.Route, 0, len(network.Routes))
	for _, route := range network.Routes {
		name := route.ID
		if route.Name != nil {
			name = *route.Name
		}
		target, ok := byIP[route.Gateway]
		out = append(out, &cloudprovider.Route{Name: name, TargetNode: types.NodeName(target), DestinationCIDR: route.Destination, Blackhole: !ok})
	}
	return out
}

// privateIPIn is the server's address in the network, else its primary private address.
func privateIPIn(server *client.Server, networkID string) string {
	for _, n := range server.PrivateNetworks {
		if n.NetworkID == networkID {
			return n.IP
		}
	}
	if server.PrivateIPv4 != nil {
		return *server.PrivateIPv4
	}
	return ""
}

// CreateRoute points route.DestinationCIDR at the target node's private IP, replacing a route to the same
// destination through another gateway.
func (r *routes) CreateRoute(ctx context.Context, _ string, nameHint string, route *cloudprovider.Route) (err error) {
	defer providerkit.Wrap(&err, ProviderName, "CreateRoute")
	ctx = routeCaller(ctx, string(route.TargetNode), "CreateRoute")
	network, err := r.getNetwork(ctx)
	if err != nil {
		return err
	}
	gateway, err := r.gatewayFor(ctx, network, route)
	if err != nil {
		return err
	}
	for _, existing := range network.Routes {
		if existing.Destination != route.DestinationCIDR {
			continue
		}
		if existing.Gateway == gateway {
			return nil
		}
		if err := r.delete(ctx, network.ID, existing.ID); err != nil {
			return err
		}
	}
	body := client.CreateRouteRequest{Destination: route.DestinationCIDR, Gateway: gateway}
	if routeName.MatchString(nameHint) {
		body.Name = nameHint
	}
	_, action, err := r.client.CreateRoute(ctx, network.ID, body)
	if err == nil {
		return r.client.WaitForAction(ctx, action)
	}
	if !client.IsConflict(err) {
		return err
	}
	// A conflict is success when the route we wanted is there (made by an earlier attempt).
	again, gerr := r.getNetwork(ctx)
	if gerr != nil {
		return err
	}
	for _, existing := range again.Routes {
		if existing.Destination == route.DestinationCIDR && existing.Gateway == gateway {
			return nil
		}
	}
	return err
}

// DeleteRoute removes the route by name (or id), else the one to the same destination; a missing one is done.
func (r *routes) DeleteRoute(ctx context.Context, _ string, route *cloudprovider.Route) (err error) {
	defer providerkit.Wrap(&err, ProviderName, "DeleteRoute")
	key := string(route.TargetNode)
	if key == "" {
		key = route.DestinationCIDR
	}
	ctx = routeCaller(ctx, key, "DeleteRoute")
	network, err := r.getNetwork(ctx)
	if err != nil {
		return err
	}
	var match *client.Route
	for i, existing := range network.Routes {
		if existing.ID == route.Name || (existing.Name != nil && *existing.Name == route.Name) {
			match = &network.Routes[i]
			break
		}
	}
	for i, existing := range network.Routes {
		if match == nil && existing.Destination == route.DestinationCIDR {
			match = &network.Routes[i]
		}
	}
	if match == nil {
		return nil
	}
	return r.delete(ctx, network.ID, match.ID)
}

func (r *routes) delete(ctx context.Context, networkID, routeID string) error {
	action, err := r.client.DeleteRoute(ctx, networkID, routeID)
	if client.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := r.client.WaitForAction(ctx, action); err != nil && !client.IsNotFound(err) {
		return err
	}
	return nil
}

// gatewayFor is the node's private IP in the network: from its server (by name), else its InternalIP.
func (r *routes) gatewayFor(ctx context.Context, network *client.Network, route *cloudprovider.Route) (string, error) {
	server, err := r.client.ServerByName(ctx, string(route.TargetNode))
	if err != nil {
		return "", err
	}
	if server != nil {
		if ip := privateIPIn(server, network.ID); ip != "" {
			return ip, nil
		}
	}
	for _, a := range route.TargetNodeAddresses {
		if a.Type == v1.NodeInternalIP {
			return a.Address, nil
		}
	}
	return "", fmt.Errorf("node %s has no private IP in network %s", route.TargetNode, network.Name)
}

// getNetwork resolves the configured network (id or name) once, then reads it by id.
func (r *routes) getNetwork(ctx context.Context) (*client.Network, error) {
	r.mu.Lock()
	id := r.networkID
	r.mu.Unlock()
	if id != "" {
		return r.client.GetNetwork(ctx, id)
	}
	var network *client.Network
	if idLike.MatchString(r.network) {
		n, err := r.client.GetNetwork(ctx, r.network)
		if err != nil && !client.IsNotFound(err) {
			return nil, err
		}
		network = n
	}
	if network == nil {
		networks, _, err := r.client.ListNetworks(ctx, client.ListOpts{Name: r.network})
		if err != nil {
			return nil, err
		}
		for i := range networks {
			if networks[i].Name == r.network {
				network = &networks[i]
			}
		}
	}
	if network == nil {
		return nil, fmt.Errorf("network %s (%s) does not exist", r.network, EnvNetwork)
	}
	r.mu.Lock()
	r.networkID = network.ID
	r.mu.Unlock()
	return network, nil
}
