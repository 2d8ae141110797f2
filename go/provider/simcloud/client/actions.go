package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"ccm-sandbox/go/internal/providerkit/poll"
)

// Action states.
const (
	ActionRunning = "running"
	ActionSuccess = "success"
	ActionError   = "error"
)

// Action is simcloud's record of an asynchronous operation.
type Action struct {
	ID       string `json:"id"`
	Command  string `json:"command"`
	Status   string `json:"status"`
	Progress int    `json:"progress"`
	Error    *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// GetAction returns one action.
func (c *Client) GetAction(ctx context.Context, id string) (*Action, error) {
	return call[Action](ctx, c, request{operation: "actions.get", method: http.MethodGet, path: "/v1/actions/" + url.PathEscape(id)}, "action")
}

// ActionDeadline bounds one wait for an action, so a controller worker never waits forever on a stuck one.
const ActionDeadline = 2 * time.Minute

// WaitForAction polls until the action finishes (at most ActionDeadline, or until ctx ends); a failed action
// is an Error with its code.
func (c *Client) WaitForAction(ctx context.Context, action *Action) error {
	ctx, cancel := context.WithTimeout(ctx, ActionDeadline)
	defer cancel()
	// failed is the action's own failure, or the error reading it: returned as it is; only a wait cut short
	// says which action it was waiting for.
	var failed error
	first := true
	err := poll.Until(ctx, poll.Backoff{First: c.actionPoll, Max: time.Second, Sleep: c.sleep}, func(ctx context.Context) (bool, error) {
		if !first {
			next, err := c.GetAction(ctx, action.ID)
			if err != nil {
				failed = err
				return true, nil
			}
			action = next
		}
		first = false
		switch action.Status {
		case ActionSuccess:
			return true, nil
		case ActionError:
			e := &Error{Operation: "actions." + action.Command, Code: CodeServerError, Message: fmt.Sprintf("action %s failed", action.ID)}
			if action.Error != nil {
				e.Code, e.Message = action.Error.Code, action.Error.Message
			}
			failed = e
			return true, nil
		}
		return false, nil
	})
	switch {
	case failed != nil:
		return failed
	case err != nil:
		return fmt.Errorf("waiting for action %s (%s): %w", action.ID, action.Command, err)
	}
	return nil
}
