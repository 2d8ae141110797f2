package client

import (
	"context"
	"net/http"
	"net/url"
)

// HealthCheck is a listener's backend health check.
type HealthCheck struct {
	// Protocol is "tcp", "http" or "none" (nothing checked: a udp listener without a health-check node port).
	Protocol string `json:"protocol"`
	// Port is nil for the listener's destination port.
	Port            *int    `json:"port"`
	Path            string  `json:"path"`
	IntervalSeconds float64 `json:"interval_seconds"`
	TimeoutSeconds  float64 `json:"timeout_seconds"`
	Retries         int     `json:"retries"`
}

// LoadBalancerService is one listener: a VIP port forwarded to a port on every target.
type LoadBalancerService struct {
	// Protocol is "tcp", "http", "https" or "udp".
	Protocol        string `json:"protocol"`
	ListenPort      int    `json:"listen_port"`
	DestinationPort int    `json:"destination_port"`
	// ProxyProtocol is "none", "v1" or "v2".
	ProxyProtocol string      `json:"proxy_protocol"`
	HealthCheck   HealthCheck `json:"health_check"`
	// CertificateID (https only) names a stored certificate TLS ends with on the VIP.
	CertificateID *string `json:"certificate_id,omitempty"`
	// RedirectHTTPSPort (http only) answers every request with a 301 to https on this port.
	RedirectHTTPSPort *int `json:"redirect_https_port,omitempty"`
}

// Target kinds of a load balancer.
const (
	TargetServer        = "server"
	TargetServerGroup   = "server_group"
	TargetLabelSelector = "label_selector"
	TargetIP            = "ip"
)

// LoadBalancerTarget is what a load balancer forwards to; Kind says which other field is set.
type LoadBalancerTarget struct {
	Kind          string `json:"kind"`
	ServerID      string `json:"server_id,omitempty"`
	ServerGroupID string `json:"server_group_id,omitempty"`
	LabelSelector string `json:"label_selector,omitempty"`
	IP            string `json:"ip,omitempty"`
}

// LoadBalancer is a simcloud load balancer.
type LoadBalancer struct {
	ID              string                `json:"id"`
	Name            string                `json:"name"`
	Labels          map[string]string     `json:"labels"`
	Location        string                `json:"location"`
	Status          string                `json:"status"`
	Algorithm       string                `json:"algorithm"`
	SessionAffinity string                `json:"session_affinity"`
	Services        []LoadBalancerService `json:"services"`
	Targets         []LoadBalancerTarget  `json:"targets"`
	// PublicIPv4 is the VIP.
	PublicIPv4   string   `json:"public_ipv4"`
	IPBlockID    *string  `json:"ip_block_id"`
	SourceRanges []string `json:"source_ranges"`
}

// CreateLoadBalancerRequest is the body of a create.
type CreateLoadBalancerRequest struct {
	Name            string                `json:"name"`
	Labels          map[string]string     `json:"labels,omitempty"`
	Location        string                `json:"location,omitempty"`
	Algorithm       string                `json:"algorithm,omitempty"`
	SessionAffinity string                `json:"session_affinity,omitempty"`
	Services        []LoadBalancerService `json:"services"`
	Targets         []LoadBalancerTarget  `json:"targets"`
	IPBlockID       string                `json:"ip_block_id,omitempty"`
	SourceRanges    []string              `json:"source_ranges"`
}

// UpdateLoadBalancerRequest replaces each field that is set (lists as a whole).
type UpdateLoadBalancerRequest struct {
	Name            string                 `json:"name,omitempty"`
	Labels          map[string]string      `json:"labels,omitempty"`
	Algorithm       string                 `json:"algorithm,omitempty"`
	SessionAffinity string                 `json:"session_affinity,omitempty"`
	Services        *[]LoadBalancerService `json:"services,omitempty"`
	Targets         *[]LoadBalancerTarget  `json:"targets,omitempty"`
	SourceRanges    *[]string              `json:"source_ranges,omitempty"`
}

// ListLoadBalancers returns one page of load balancers.
func (c *Client) ListLoadBalancers(ctx context.Context, opts ListOpts) ([]LoadBalancer, Meta, error) {
	return list[LoadBalancer](ctx, c, "loadBalancers.list", "/v1/load_balancers", "load_balancers", opts.values())
}

// GetLoadBalancer returns one load balancer; a missing one is an Error with CodeNotFound.
func (c *Client) GetLoadBalancer(ctx context.Context, id string) (*LoadBalancer, error) {
	return call[LoadBalancer](ctx, c, request{operation: "loadBalancers.get", method: http.MethodGet, path: "/v1/load_balancers/" + url.PathEscape(id)}, "load_balancer")
}

// CreateLoadBalancer creates a load balancer and returns it with its create action.
func (c *Client) CreateLoadBalancer(ctx context.Context, body CreateLoadBalancerRequest) (*LoadBalancer, *Action, error) {
	return callWithAction[LoadBalancer](ctx, c, request{operation: "loadBalancers.create", method: http.MethodPost, path: "/v1/load_balancers", body: body}, "load_balancer")
}

// UpdateLoadBalancer changes the fields set in body.
func (c *Client) UpdateLoadBalancer(ctx context.Context, id string, body UpdateLoadBalancerRequest) (*LoadBalancer, error) {
	return call[LoadBalancer](ctx, c, request{operation: "loadBalancers.update", method: http.MethodPatch, path: "/v1/load_balancers/" + url.PathEscape(id), body: body}, "load_balancer")
}

// DeleteLoadBalancer starts deleting a load balancer and returns the action.
func (c *Client) DeleteLoadBalancer(ctx context.Context, id string) (*Action, error) {
	return call[Action](ctx, c, request{operation: "loadBalancers.delete", method: http.MethodDelete, path: "/v1/load_balancers/" + url.PathEscape(id)}, "action")
}
