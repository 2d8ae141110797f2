package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
)

// answer is a response body whose named parts ("server", "action", "meta") are decoded one by one, so one
// helper serves every resource instead of a struct per endpoint.
type answer map[string]json.RawMessage

// part decodes the part under key into v; an absent part leaves v as it is.
func (a answer) part(operation, key string, v any) error {
	raw, ok := a[key]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return &Error{Operation: operation, Code: CodeInvalidResponse, Message: key + ": " + err.Error()}
	}
	return nil
}

// call makes req and returns the part of the answer under key, e.g. "server_group".
func call[T any](ctx context.Context, c *Client, req request, key string) (*T, error) {
	var a answer
	if err := c.do(ctx, req, &a); err != nil {
		return nil, err
	}
	var v T
	if err := a.part(req.operation, key, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// callWithAction is call for the requests that answer with the resource and the action that makes it.
func callWithAction[T any](ctx context.Context, c *Client, req request, key string) (*T, *Action, error) {
	var a answer
	if err := c.do(ctx, req, &a); err != nil {
		return nil, nil, err
	}
	var v T
	var action Action
	if err := errors.Join(a.part(req.operation, key, &v), a.part(req.operation, "action", &action)); err != nil {
		return nil, nil, err
	}
	return &v, &action, nil
}

// list returns one page of the list at path, whose items are under key.
func list[T any](ctx context.Context, c *Client, operation, path, key string, query url.Values) ([]T, Meta, error) {
	var a answer
	var items []T
	var meta Meta
	err := c.do(ctx, request{operation: operation, method: http.MethodGet, path: path, query: query}, &a)
	if err == nil {
		err = errors.Join(a.part(operation, key, &items), a.part(operation, "meta", &meta))
	}
	return items, meta, err
}
