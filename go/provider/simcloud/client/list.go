package client

import (
	"context"
	"net/url"
	"strconv"
)

// ListOpts are the query parameters every list accepts; zero values are left out.
type ListOpts struct {
	Page    int
	PerPage int
	// Sort is "id", "name" or "created", optionally with ":asc" or ":desc".
	Sort string
	// LabelSelector is a Kubernetes-style selector, e.g. "a=b,c".
	LabelSelector string
	// Name matches the resource name exactly.
	Name string
}

func (o ListOpts) values() url.Values {
	v := url.Values{}
	if o.Page > 0 {
		v.Set("page", strconv.Itoa(o.Page))
	}
	if o.PerPage > 0 {
		v.Set("per_page", strconv.Itoa(o.PerPage))
	}
	if o.Sort != "" {
		v.Set("sort", o.Sort)
	}
	if o.LabelSelector != "" {
		v.Set("label_selector", o.LabelSelector)
	}
	if o.Name != "" {
		v.Set("name", o.Name)
	}
	return v
}

// Meta is the pagination block of every list answer.
type Meta struct {
	Pagination struct {
		Page         int  `json:"page"`
		PerPage      int  `json:"per_page"`
		NextPage     *int `json:"next_page"`
		LastPage     int  `json:"last_page"`
		TotalEntries int  `json:"total_entries"`
	} `json:"pagination"`
}

// maxPerPage is the largest page simcloud serves.
const maxPerPage = 500

// listAll fetches every page of one list, starting from opts (its Page is ignored).
func listAll[T any](ctx context.Context, opts ListOpts, page func(context.Context, ListOpts) ([]T, Meta, error)) ([]T, error) {
	var all []T
	opts.PerPage = maxPerPage
	for next := 1; ; {
		opts.Page = next
		items, meta, err := page(ctx, opts)
		if err != nil {
			return nil, err
		}
		all = append(all, items...)
		if meta.Pagination.NextPage == nil {
			return all, nil
		}
		next = *meta.Pagination.NextPage
	}
}
