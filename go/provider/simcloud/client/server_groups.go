package client

import (
	"context"
	"net/http"
	"net/url"
)

// MaxServersPerRequest is the most server ids one server-group request may carry.
const MaxServersPerRequest = 1000

// ServerGroup is a set of servers, usable as a load balancer target and a firewall scope.
type ServerGroup struct {
	ID               string            `json:"id"`
	Name             string            `json:"name"`
	Description      string            `json:"description"`
	Labels           map[string]string `json:"labels"`
	Servers          []string          `json:"servers"`
	FirewallPolicyID *string           `json:"firewall_policy_id"`
}

// CreateServerGroupRequest is the body of a create.
type CreateServerGroupRequest struct {
	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Servers     []string          `json:"servers"`
}

// ListServerGroups returns one page of server groups.
func (c *Client) ListServerGroups(ctx context.Context, opts ListOpts) ([]ServerGroup, Meta, error) {
	return list[ServerGroup](ctx, c, "serverGroups.list", "/v1/server_groups", "server_groups", opts.values())
}

// CreateServerGroup creates a group with at most MaxServersPerRequest members.
func (c *Client) CreateServerGroup(ctx context.Context, body CreateServerGroupRequest) (*ServerGroup, error) {
	return c.serverGroupCall(ctx, request{operation: "serverGroups.create", method: http.MethodPost, path: "/v1/server_groups", body: body})
}

// AddServers adds members (present ones are kept).
func (c *Client) AddServers(ctx context.Context, id string, servers []string) (*ServerGroup, error) {
	path := "/v1/server_groups/" + url.PathEscape(id) + "/actions/add_servers"
	return c.serverGroupCall(ctx, request{operation: "serverGroups.addServers", method: http.MethodPost, path: path, body: map[string][]string{"servers": servers}})
}

// RemoveServers removes members (absent ones are skipped).
func (c *Client) RemoveServers(ctx context.Context, id string, servers []string) (*ServerGroup, error) {
	path := "/v1/server_groups/" + url.PathEscape(id) + "/actions/remove_servers"
	return c.serverGroupCall(ctx, request{operation: "serverGroups.removeServers", method: http.MethodPost, path: path, body: map[string][]string{"servers": servers}})
}

// DeleteServerGroup deletes a group.
func (c *Client) DeleteServerGroup(ctx context.Context, id string) error {
	return c.do(ctx, request{operation: "serverGroups.delete", method: http.MethodDelete, path: "/v1/server_groups/" + url.PathEscape(id)}, nil)
}

func (c *Client) serverGroupCall(ctx context.Context, req request) (*ServerGroup, error) {
	return call[ServerGroup](ctx, c, req, "server_group")
}
