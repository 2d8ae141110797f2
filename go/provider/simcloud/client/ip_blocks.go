package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// IPBlock is an allocated CIDR; a load balancer created with its id takes the block's third address as VIP.
type IPBlock struct {
	ID         string            `json:"id"`
	CIDR       string            `json:"cidr"`
	Location   string            `json:"location"`
	Tags       map[string]string `json:"tags"`
	Status     string            `json:"status"`
	AssignedTo *struct {
		Kind string `json:"kind"`
		ID   string `json:"id"`
	} `json:"assigned_to"`
}

// ListAllIPBlocks returns every IP block of the project.
func (c *Client) ListAllIPBlocks(ctx context.Context) ([]IPBlock, error) {
	return listAll(ctx, ListOpts{}, func(ctx context.Context, opts ListOpts) ([]IPBlock, Meta, error) {
		var out struct {
			IPBlocks []IPBlock `json:"ip_blocks"`
			Meta     Meta      `json:"meta"`
		}
		q := url.Values{"page": {strconv.Itoa(opts.Page)}, "per_page": {strconv.Itoa(opts.PerPage)}}
		err := c.do(ctx, request{operation: "ipBlocks.list", method: http.MethodGet, path: "/v1/ip_blocks", query: q}, &out)
		return out.IPBlocks, out.Meta, err
	})
}
