package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"ccm-sandbox/go/internal/providerkit/poll"
	"ccm-sandbox/go/internal/rategate"
)

// Headers the client sends so simcloud can attribute each call.
const (
	HeaderCaller    = "X-Simcloud-Caller"
	HeaderMethod    = "X-Simcloud-Method"
	HeaderRequestID = "X-Request-Id"
)

// RetryPolicy bounds the client's retries (see the package doc for which answers are retried).
type RetryPolicy struct {
	// MaxRetries is the number of retries after the first attempt.
	MaxRetries int
	// BaseDelay and MaxDelay bound the exponential backoff used when the server sent no Retry-After.
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// MaxRetryAfter caps a server's Retry-After.
	MaxRetryAfter time.Duration
}

// DefaultRetryPolicy is used unless WithRetryPolicy says otherwise.
var DefaultRetryPolicy = RetryPolicy{MaxRetries: 4, BaseDelay: 200 * time.Millisecond, MaxDelay: 5 * time.Second, MaxRetryAfter: time.Minute}

// Client calls one simcloud endpoint with one token. It is safe for concurrent use.
type Client struct {
	endpoint  *url.URL
	token     string
	http      *http.Client
	userAgent string
	retry     RetryPolicy
	sleep     func(ctx context.Context, d time.Duration) error
	// actionPoll is the first interval between two polls of a running action; it doubles up to 1 s.
	actionPoll time.Duration
	observe    Observer
}

// Observer sees every HTTP exchange (each attempt): the operation (e.g. "servers.get"), the HTTP status
// (0 when no answer arrived) and how long it took.
type Observer func(operation string, status int, took time.Duration)

// WithObserver reports every exchange to observe (metrics).
func WithObserver(observe Observer) Option { return func(c *Client) { c.observe = observe } }

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient replaces the HTTP client (default: one with a 30 s timeout whose transport holds every
// request back after a 429 until the announced time, go/internal/rategate).
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// WithTimeout sets the timeout of one HTTP exchange.
func WithTimeout(d time.Duration) Option {
	return func(c *Client) { c.http = &http.Client{Timeout: d, Transport: c.http.Transport} }
}

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// WithRetryPolicy replaces DefaultRetryPolicy.
func WithRetryPolicy(p RetryPolicy) Option { return func(c *Client) { c.retry = p } }

// WithSleep replaces the wait between retries and action polls (tests pass one that does not sleep).
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(c *Client) { c.sleep = sleep }
}

// New returns a client for endpoint (e.g. "http://127.0.0.1:4600") and token. It makes no call.
func New(endpoint, token string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(endpoint, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("endpoint %q must be an http or https URL like http://127.0.0.1:4600", endpoint)
	}
	if token == "" || strings.ContainsAny(token, " \t\r\n") {
		return nil, errors.New("token must be non-empty and contain no spaces or line breaks")
	}
	c := &Client{
		endpoint:   u,
		token:      token,
		http:       &http.Client{Timeout: 30 * time.Second, Transport: rategate.New(nil)},
		userAgent:  "ccm-sandbox-upstream-ccm",
		retry:      DefaultRetryPolicy,
		sleep:      poll.Sleep,
		actionPoll: 100 * time.Millisecond,
		observe:    func(string, int, time.Duration) {},
	}
	for _, opt := range opts {
		opt(c)
	}
	return c, nil
}

// request is one logical call; its retries share the request id.
type request struct {
	operation string
	method    string
	path      string
	query     url.Values
	body      any
}

// idempotent methods may be repeated after an answer that does not say whether they took effect.
func idempotent(method string) bool {
	return method == http.MethodGet || method == http.MethodPut || method == http.MethodDelete
}

// do sends req, retrying as the package doc says, and decodes a 2xx JSON answer into out (when non-nil).
func (c *Client) do(ctx context.Context, req request, out any) error {
	var body []byte
	if req.body != nil {
		var err error
		if body, err = json.Marshal(req.body); err != nil {
			return &Error{Operation: req.operation, Code: CodeInvalidInput, Message: err.Error()}
		}
	}
	id := newRequestID()
	for attempt := 0; ; attempt++ {
		started := time.Now()
		err := c.once(ctx, req, body, id, out)
		c.observe(req.operation, statusOf(err), time.Since(started))
		if err == nil {
			return nil
		}
		delay, retry := c.retryDelay(req.method, err, attempt)
		if !retry || ctx.Err() != nil {
			return err
		}
		if serr := c.sleep(ctx, delay); serr != nil {
			return err
		}
	}
}

// statusOf is the HTTP status an attempt ended with: 200 for success, 0 when no answer arrived.
func statusOf(err error) int {
	if err == nil {
		return http.StatusOK
	}
	if e, ok := err.(*Error); ok {
		return e.Status
	}
	return 0
}

// retryDelay says whether a failed attempt is retried, and after how long.
func (c *Client) retryDelay(method string, err error, attempt int) (time.Duration, bool) {
	e, ok := err.(*Error)
	if !ok || attempt >= c.retry.MaxRetries {
		return 0, false
	}
	notCarriedOut := e.Code == CodeRateLimitExceeded || e.Code == CodeLocked
	maybeCarriedOut := e.Status >= 500 || e.Code == CodeNetworkError
	if !notCarriedOut && !(maybeCarriedOut && idempotent(method)) {
		return 0, false
	}
	if e.RetryAfter > 0 {
		return min(e.RetryAfter, c.retry.MaxRetryAfter), true
	}
	backoff := float64(c.retry.BaseDelay) * math.Pow(2, float64(attempt))
	return min(time.Duration(backoff), c.retry.MaxDelay), true
}

func (c *Client) once(ctx context.Context, req request, body []byte, id string, out any) error {
	u := *c.endpoint
	u.Path += req.path
	u.RawQuery = req.query.Encode()
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body)
	}
	hreq, err := http.NewRequestWithContext(ctx, req.method, u.String(), reader)
	if err != nil {
		return &Error{Operation: req.operation, Code: CodeInvalidInput, Message: err.Error()}
	}
	c.setHeaders(ctx, hreq, id, body != nil)
	res, err := c.http.Do(hreq)
	if err != nil {
		return &Error{Operation: req.operation, Code: CodeNetworkError, Message: err.Error(), RequestID: id, cause: err}
	}
	defer func() { _ = res.Body.Close() }()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return &Error{Operation: req.operation, Code: CodeNetworkError, Message: err.Error(), RequestID: id, cause: err}
	}
	if res.StatusCode >= 400 {
		return apiError(req.operation, res, data, id)
	}
	if out == nil || len(data) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return &Error{Operation: req.operation, Status: res.StatusCode, Code: CodeInvalidResponse, Message: err.Error(), RequestID: id}
	}
	return nil
}

func (c *Client) setHeaders(ctx context.Context, hreq *http.Request, id string, hasBody bool) {
	hreq.Header.Set("Authorization", "Bearer "+c.token)
	hreq.Header.Set("Accept", "application/json")
	hreq.Header.Set("User-Agent", c.userAgent)
	hreq.Header.Set(HeaderRequestID, id)
	if hasBody {
		hreq.Header.Set("Content-Type", "application/json")
	}
	if caller, ok := CallerFrom(ctx); ok {
		hreq.Header.Set(HeaderCaller, caller.header())
		if caller.Method != "" {
			hreq.Header.Set(HeaderMethod, caller.Method)
		}
	}
}

// apiError decodes simcloud's error envelope; a body that is not one still yields an Error with the status.
func apiError(operation string, res *http.Response, data []byte, id string) *Error {
	e := &Error{Operation: operation, Status: res.StatusCode, RequestID: id, RetryAfter: retryAfter(res.Header.Get("Retry-After"))}
	if rid := res.Header.Get(HeaderRequestID); rid != "" {
		e.RequestID = rid
	}
	var envelope struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Details *struct {
				Fields []FieldError `json:"fields"`
			} `json:"details"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &envelope) != nil || envelope.Error.Code == "" {
		e.Code = codeForStatus(res.StatusCode)
		e.Message = fmt.Sprintf("HTTP %d", res.StatusCode)
		return e
	}
	e.Code = envelope.Error.Code
	e.Message = envelope.Error.Message
	if envelope.Error.Details != nil {
		e.Fields = envelope.Error.Details.Fields
	}
	return e
}

func codeForStatus(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return CodeUnauthorized
	case http.StatusForbidden:
		return CodeForbidden
	case http.StatusNotFound:
		return CodeNotFound
	case http.StatusConflict:
		return CodeConflict
	case http.StatusLocked:
		return CodeLocked
	case http.StatusTooManyRequests:
		return CodeRateLimitExceeded
	}
	if status >= 500 {
		return CodeServiceUnavailable
	}
	return CodeInvalidInput
}

// retryAfter parses delta-seconds or an HTTP date; 0 when absent or malformed.
func retryAfter(value string) time.Duration {
	value = strings.TrimSpace(value)
	if value == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(value, 64); err == nil && secs >= 0 {
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(value); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

func newRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "req-" + hex.EncodeToString(b[:])
}
