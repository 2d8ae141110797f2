package client

import (
	"context"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// IPBlock is an allocated CIDR; a load balancer created with its id takes the block's third address as VIP.
type IPBlock struct {
	ID          string            `json:"id"`
	CIDR        string            `json:"cidr"`
	Location    string            `json:"location"`
	Description string            `json:"description"`
	Tags        map[string]string `json:"tags"`
	Status      string            `json:"status"`
	AssignedTo  *struct {
		Kind string `json:"kind"`
		ID   string `json:"id"`
	} `json:"assigned_to"`
}

// AllocateIPBlockRequest is the body of an allocation.
type AllocateIPBlockRequest struct {
	Location    string            `json:"location"`
	Size        int               `json:"size,omitempty"`
	Description string            `json:"description,omitempty"`
	Tags        map[string]string `json:"tags,omitempty"`
}

// tagQuery is the list filter "k=v,k2=v2" (every tag must match), in key order.
func tagQuery(tags map[string]string) string {
	pairs := make([]string, 0, len(tags))
	for k, v := range tags {
		pairs = append(pairs, k+"="+v)
	}
	sort.Strings(pairs)
	return strings.Join(pairs, ",")
}

// ListAllIPBlocks returns every IP block of the project carrying all of tags (every block when nil).
func (c *Client) ListAllIPBlocks(ctx context.Context, tags map[string]string) ([]IPBlock, error) {
	return listAll(ctx, ListOpts{}, func(ctx context.Context, opts ListOpts) ([]IPBlock, Meta, error) {
		q := url.Values{"page": {strconv.Itoa(opts.Page)}, "per_page": {strconv.Itoa(opts.PerPage)}}
		if len(tags) > 0 {
			q.Set("tags", tagQuery(tags))
		}
		return list[IPBlock](ctx, c, "ipBlocks.list", "/v1/ip_blocks", "ip_blocks", q)
	})
}

func (c *Client) ipBlockCall(ctx context.Context, req request) (*IPBlock, error) {
	return call[IPBlock](ctx, c, req, "ip_block")
}

// GetIPBlock returns one IP block; a missing one is an Error with CodeNotFound.
func (c *Client) GetIPBlock(ctx context.Context, id string) (*IPBlock, error) {
	return c.ipBlockCall(ctx, request{operation: "ipBlocks.get", method: http.MethodGet, path: "/v1/ip_blocks/" + url.PathEscape(id)})
}

// AllocateIPBlock allocates a block in a location.
func (c *Client) AllocateIPBlock(ctx context.Context, body AllocateIPBlockRequest) (*IPBlock, error) {
	return c.ipBlockCall(ctx, request{operation: "ipBlocks.allocate", method: http.MethodPost, path: "/v1/ip_blocks", body: body})
}

// SetIPBlockTags replaces a block's tags.
func (c *Client) SetIPBlockTags(ctx context.Context, id string, tags map[string]string) (*IPBlock, error) {
	body := map[string]map[string]string{"tags": tags}
	return c.ipBlockCall(ctx, request{operation: "ipBlocks.update", method: http.MethodPatch, path: "/v1/ip_blocks/" + url.PathEscape(id), body: body})
}

// UnassignIPBlock detaches a block from its load balancer or network.
func (c *Client) UnassignIPBlock(ctx context.Context, id string) (*IPBlock, error) {
	path := "/v1/ip_blocks/" + url.PathEscape(id) + "/actions/unassign"
	return c.ipBlockCall(ctx, request{operation: "ipBlocks.unassign", method: http.MethodPost, path: path, body: map[string]string{}})
}

// ReleaseIPBlock gives a block back.
func (c *Client) ReleaseIPBlock(ctx context.Context, id string) error {
	return c.do(ctx, request{operation: "ipBlocks.release", method: http.MethodDelete, path: "/v1/ip_blocks/" + url.PathEscape(id)}, nil)
}

// Region is a location load balancers and IP blocks can be placed in.
type Region struct {
	ID string `json:"id"`
}

// ListRegions returns the catalogue's regions.
func (c *Client) ListRegions(ctx context.Context) ([]Region, error) {
	regions, _, err := list[Region](ctx, c, "catalogue.regions", "/v1/regions", "regions", nil)
	return regions, err
}
