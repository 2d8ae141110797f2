//go:build routes

package main

import (
	"context"
	"net"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"k8s.io/apimachinery/pkg/types"
	cloudprovider "k8s.io/cloud-provider"
)

func init() {
	newRoutes = func(c *cloud) cloudprovider.Routes { return &routes{cloud: c} }
}

// routes is Routes: in the cluster network, each Node's pod range (its podCIDR) goes to the Node's server.
// The route controller lists the routes, creates the missing ones and deletes those of Nodes that are gone;
// after a route exists it sets the Node's NetworkUnavailable condition to False.
type routes struct {
	cloud *cloud
}

// serversByIP maps each server's address in the cluster network to the server, to name a route's node.
func (r *routes) serversByIP(ctx context.Context) (map[string]*hcloud.Server, error) {
	servers, err := r.cloud.client.Server.All(ctx)
	if err != nil {
		return nil, err
	}
	byIP := map[string]*hcloud.Server{}
	for _, s := range servers {
		for _, private := range s.PrivateNet {
			if private.Network.ID == r.cloud.network.ID {
				byIP[private.IP.String()] = s
			}
		}
	}
	return byIP, nil
}

// ListRoutes reads the network's routes; TargetNode is the Node (server) name behind each gateway.
func (r *routes) ListRoutes(ctx context.Context, _ string) ([]*cloudprovider.Route, error) {
	network, _, err := r.cloud.client.Network.GetByID(ctx, r.cloud.network.ID)
	if err != nil {
		return nil, err
	}
	byIP, err := r.serversByIP(ctx)
	if err != nil {
		return nil, err
	}
	var list []*cloudprovider.Route
	for _, route := range network.Routes {
		node := ""
		if s := byIP[route.Gateway.String()]; s != nil {
			node = s.Name
		}
		list = append(list, &cloudprovider.Route{Name: route.Destination.String(), TargetNode: types.NodeName(node), DestinationCIDR: route.Destination.String()})
	}
	return list, nil
}

// CreateRoute sends route.DestinationCIDR to the target node's server.
func (r *routes) CreateRoute(ctx context.Context, _ string, _ string, route *cloudprovider.Route) error {
	server, _, err := r.cloud.client.Server.GetByName(ctx, string(route.TargetNode))
	if err != nil || server == nil {
		return cloudprovider.InstanceNotFound
	}
	var gateway net.IP
	for _, private := range server.PrivateNet {
		if private.Network.ID == r.cloud.network.ID {
			gateway = private.IP
		}
	}
	_, destination, err := net.ParseCIDR(route.DestinationCIDR)
	if err != nil || gateway == nil {
		return cloudprovider.InstanceNotFound
	}
	action, _, err := r.cloud.client.Network.AddRoute(ctx, r.cloud.network, hcloud.NetworkAddRouteOpts{Route: hcloud.NetworkRoute{Destination: destination, Gateway: gateway}})
	if err != nil {
		return err
	}
	return r.cloud.client.Action.WaitFor(ctx, action)
}

// DeleteRoute removes the network's route to route.DestinationCIDR, whatever its gateway.
func (r *routes) DeleteRoute(ctx context.Context, _ string, route *cloudprovider.Route) error {
	network, _, err := r.cloud.client.Network.GetByID(ctx, r.cloud.network.ID)
	if err != nil {
		return err
	}
	for _, existing := range network.Routes {
		if existing.Destination.String() == route.DestinationCIDR {
			action, _, err := r.cloud.client.Network.DeleteRoute(ctx, network, hcloud.NetworkDeleteRouteOpts{Route: existing})
			if err != nil {
				return err
			}
			return r.cloud.client.Action.WaitFor(ctx, action)
		}
	}
	return nil
}
