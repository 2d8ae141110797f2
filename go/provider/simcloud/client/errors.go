package client

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Error codes simcloud answers with, plus the client-side ones for calls that got no usable answer.
const (
	CodeInvalidInput       = "invalid_input"
	CodeUnauthorized       = "unauthorized"
	CodeForbidden          = "forbidden"
	CodeNotFound           = "not_found"
	CodeConflict           = "conflict"
	CodeLocked             = "locked"
	CodeRateLimitExceeded  = "rate_limit_exceeded"
	CodeServiceUnavailable = "service_unavailable"
	CodeServerError        = "server_error"
	// CodeNetworkError means no HTTP answer arrived (connection refused, reset, timeout).
	CodeNetworkError = "network_error"
	// CodeInvalidResponse means the answer could not be decoded.
	CodeInvalidResponse = "invalid_response"
)

// FieldError names one invalid request field and what is wrong with it.
type FieldError struct {
	Name     string   `json:"name"`
	Messages []string `json:"messages"`
}

// Error is the one error type of the client: an error envelope from simcloud, or a failure to reach it.
type Error struct {
	// Operation is the client method, e.g. "servers.get".
	Operation string
	// Status is the HTTP status; 0 when no answer arrived.
	Status int
	// Code is simcloud's error code or one of the client-side codes.
	Code      string
	Message   string
	RequestID string
	Fields    []FieldError
	// RetryAfter is the server's Retry-After, when it sent one.
	RetryAfter time.Duration
	cause      error
}

// Error formats "<operation>: <code> (HTTP <status>): <message>[; field: message]".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Operation)
	b.WriteString(": ")
	b.WriteString(e.Code)
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	b.WriteString(": ")
	b.WriteString(e.Message)
	for _, f := range e.Fields {
		fmt.Fprintf(&b, "; %s: %s", f.Name, strings.Join(f.Messages, ", "))
	}
	return b.String()
}

// Unwrap returns the network error behind a CodeNetworkError, if any.
func (e *Error) Unwrap() error { return e.cause }

// HasCode reports whether err is a client Error with the given code.
func HasCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// IsNotFound reports whether simcloud answered not_found.
func IsNotFound(err error) bool { return HasCode(err, CodeNotFound) }

// IsConflict reports whether simcloud answered conflict.
func IsConflict(err error) bool { return HasCode(err, CodeConflict) }
