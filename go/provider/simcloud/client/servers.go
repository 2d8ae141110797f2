package client

import (
	"context"
	"net/http"
	"net/url"
)

// Server power states.
const (
	ServerInitializing = "initializing"
	ServerStarting     = "starting"
	ServerRunning      = "running"
	ServerStopping     = "stopping"
	ServerOff          = "off"
	ServerDeleting     = "deleting"
)

// PrivateNet is a server's attachment to a private network.
type PrivateNet struct {
	NetworkID string `json:"network_id"`
	IP        string `json:"ip"`
}

// Server is a simcloud server (a machine a Kubernetes node runs on).
type Server struct {
	ID         string            `json:"id"`
	Name       string            `json:"name"`
	Status     string            `json:"status"`
	ServerType string            `json:"server_type"`
	Image      string            `json:"image"`
	Zone       string            `json:"zone"`
	Region     string            `json:"region"`
	Labels     map[string]string `json:"labels"`
	// PublicIPv4 is nil for a server without a public address.
	PublicIPv4 *string `json:"public_ipv4"`
	// PrivateIPv4 is the primary private address: the first network's, or one given at create.
	PrivateIPv4     *string      `json:"private_ipv4"`
	PrivateNetworks []PrivateNet `json:"private_networks"`
	Locked          bool         `json:"locked"`
	Created         string       `json:"created"`
}

// ListServers returns one page of servers.
func (c *Client) ListServers(ctx context.Context, opts ListOpts) ([]Server, Meta, error) {
	return list[Server](ctx, c, "servers.list", "/v1/servers", "servers", opts.values())
}

// ListAllServers returns every server matching opts.
func (c *Client) ListAllServers(ctx context.Context, opts ListOpts) ([]Server, error) {
	return listAll(ctx, opts, c.ListServers)
}

// GetServer returns one server; a missing one is an Error with CodeNotFound.
func (c *Client) GetServer(ctx context.Context, id string) (*Server, error) {
	return call[Server](ctx, c, request{operation: "servers.get", method: http.MethodGet, path: "/v1/servers/" + url.PathEscape(id)}, "server")
}

// ServerByName returns the server named name, or nil when there is none.
func (c *Client) ServerByName(ctx context.Context, name string) (*Server, error) {
	servers, _, err := c.ListServers(ctx, ListOpts{Name: name, PerPage: 2})
	if err != nil {
		return nil, err
	}
	for i := range servers {
		if servers[i].Name == name {
			return &servers[i], nil
		}
	}
	return nil, nil
}
