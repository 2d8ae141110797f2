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
	var out struct {
		Networks []Network `json:"networks"`
		Meta     Meta      `json:"meta"`
	}
	err := c.do(ctx, request{operation: "networks.list", method: http.MethodGet, path: "/v1/networks", query: opts.values()}, &out)
	return out.Networks, out.Meta, err
}

// GetNetwork returns one network with its routes.
func (c *Client) GetNetwork(ctx context.Context, id string) (*Network, error) {
	var out struct {
		Network Network `json:"network"`
	}
	err := c.do(ctx, request{operation: "networks.get", method: http.MethodGet, path: "/v1/networks/" + url.PathEscape(id)}, &out)
	if err != nil {
		return nil, err
	}
	return &out.Network, nil
}

// CreateRoute adds a route; conflict when the destination overlaps an existing route.
func (c *Client) CreateRoute(ctx context.Context, networkID string, body CreateRouteRequest) (*Route, *Action, error) {
	var out struct {
		Route  Route  `json:"route"`
		Action Action `json:"action"`
	}
	path := "/v1/networks/" + url.PathEscape(networkID) + "/routes"
	if err := c.do(ctx, request{operation: "networks.createRoute", method: http.MethodPost, path: path, body: body}, &out); err != nil {
		return nil, nil, err
	}
	return &out.Route, &out.Action, nil
}

// DeleteRoute starts deleting a route and returns the action.
func (c *Client) DeleteRoute(ctx context.Context, networkID, routeID string) (*Action, error) {
	var out struct {
		Action Action `json:"action"`
	}
	path := "/v1/networks/" + url.PathEscape(networkID) + "/routes/" + url.PathEscape(routeID)
	if err := c.do(ctx, request{operation: "networks.deleteRoute", method: http.MethodDelete, path: path}, &out); err != nil {
		return nil, err
	}
	return &out.Action, nil
}
