package client

import (
	"context"
	"net/http"
	"net/url"
)

// FirewallRule is one rule of a policy.
type FirewallRule struct {
	// Direction is "inbound" or "outbound".
	Direction string `json:"direction"`
	// Protocol is "tcp", "udp", "icmp" or "any".
	Protocol string `json:"protocol"`
	// Ports is "80" or "8000-9000"; nil for all ports.
	Ports            *string  `json:"ports"`
	SourceCIDRs      []string `json:"source_cidrs"`
	DestinationCIDRs []string `json:"destination_cidrs"`
	Description      string   `json:"description"`
}

// FirewallPolicy is a set of rules applied to at most one server group.
type FirewallPolicy struct {
	ID            string            `json:"id"`
	Name          string            `json:"name"`
	Description   string            `json:"description"`
	Labels        map[string]string `json:"labels"`
	ServerGroupID *string           `json:"server_group_id"`
	Rules         []FirewallRule    `json:"rules"`
}

// CreateFirewallPolicyRequest is the body of a create.
type CreateFirewallPolicyRequest struct {
	Name          string            `json:"name"`
	Description   string            `json:"description,omitempty"`
	Labels        map[string]string `json:"labels,omitempty"`
	Rules         []FirewallRule    `json:"rules"`
	ServerGroupID string            `json:"server_group_id,omitempty"`
}

func (c *Client) firewallPolicyCall(ctx context.Context, req request) (*FirewallPolicy, error) {
	return call[FirewallPolicy](ctx, c, req, "firewall_policy")
}

// ListFirewallPolicies returns one page of firewall policies.
func (c *Client) ListFirewallPolicies(ctx context.Context, opts ListOpts) ([]FirewallPolicy, Meta, error) {
	return list[FirewallPolicy](ctx, c, "firewallPolicies.list", "/v1/firewall_policies", "firewall_policies", opts.values())
}

// CreateFirewallPolicy creates a policy, applied to body.ServerGroupID when set.
func (c *Client) CreateFirewallPolicy(ctx context.Context, body CreateFirewallPolicyRequest) (*FirewallPolicy, error) {
	return c.firewallPolicyCall(ctx, request{operation: "firewallPolicies.create", method: http.MethodPost, path: "/v1/firewall_policies", body: body})
}

// SetFirewallRules replaces all rules of a policy.
func (c *Client) SetFirewallRules(ctx context.Context, id string, rules []FirewallRule) (*FirewallPolicy, error) {
	path := "/v1/firewall_policies/" + url.PathEscape(id) + "/rules"
	return c.firewallPolicyCall(ctx, request{operation: "firewallPolicies.setRules", method: http.MethodPut, path: path, body: map[string][]FirewallRule{"rules": rules}})
}

// ApplyFirewallPolicy applies a policy to a server group.
func (c *Client) ApplyFirewallPolicy(ctx context.Context, id, serverGroupID string) (*FirewallPolicy, error) {
	path := "/v1/firewall_policies/" + url.PathEscape(id) + "/actions/apply"
	return c.firewallPolicyCall(ctx, request{operation: "firewallPolicies.apply", method: http.MethodPost, path: path, body: map[string]string{"server_group_id": serverGroupID}})
}

// RemoveFirewallPolicy unapplies a policy from its server group.
func (c *Client) RemoveFirewallPolicy(ctx context.Context, id string) (*FirewallPolicy, error) {
	path := "/v1/firewall_policies/" + url.PathEscape(id) + "/actions/remove"
	return c.firewallPolicyCall(ctx, request{operation: "firewallPolicies.remove", method: http.MethodPost, path: path, body: map[string]string{}})
}

// DeleteFirewallPolicy deletes a policy.
func (c *Client) DeleteFirewallPolicy(ctx context.Context, id string) error {
	return c.do(ctx, request{operation: "firewallPolicies.delete", method: http.MethodDelete, path: "/v1/firewall_policies/" + url.PathEscape(id)}, nil)
}
