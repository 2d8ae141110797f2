package client

import (
	"context"
	"net/http"
	"net/url"
)

// Route sends Destination to Gateway, an address inside the network.
type Route struct {
	ID string `json:"id"`
	// Name is the name given at create, nil when none.
	Name        *string `json:"name"`
	Destination string  `json:"destination"`
	Gateway     string  `json:"gateway"`
}

// Network is a private network with its routes.
type Network struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	IPRange string   `json:"ip_range"`
	Routes  []Route  `json:"routes"`
	Servers []string `json:"servers"`
}

// CreateRouteRequest is the body of a route create.
type CreateRouteRequest struct {
	Destination string `json:"destination"`
	Gateway     string `json:"gateway"`
	Name        string `json:"name,omitempty"`
}

// ListNetworks returns one page of networks.
func (c *Client) ListNetworks(ctx context.Context, opts ListOpts) ([]Network, Meta, error) {
	return list[Network](ctx, c, "networks.list", "/v1/networks", "networks", opts.values())
}

// GetNetwork returns one network with its routes.
func (c *Client) GetNetwork(ctx context.Context, id string) (*Network, error) {
	return call[Network](ctx, c, request{operation: "networks.get", method: http.MethodGet, path: "/v1/networks/" + url.PathEscape(id)}, "network")
}

// CreateRoute adds a route; conflict when the destination overlaps an existing route.
func (c *Client) CreateRoute(ctx context.Context, networkID string, body CreateRouteRequest) (*Route, *Action, error) {
	path := "/v1/networks/" + url.PathEscape(networkID) + "/routes"
	return callWithAction[Route](ctx, c, request{operation: "networks.createRoute", method: http.MethodPost, path: path, body: body}, "route")
}

// DeleteRoute starts deleting a route and returns the action.
func (c *Client) DeleteRoute(ctx context.Context, networkID, routeID string) (*Action, error) {
	path := "/v1/networks/" + url.PathEscape(networkID) + "/routes/" + url.PathEscape(routeID)
	return call[Action](ctx, c, request{operation: "networks.deleteRoute", method: http.MethodDelete, path: path}, "action")
}
