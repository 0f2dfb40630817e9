// Package apierr defines the only error type that carries client-facing
// meaning. Any other error reaching the API edge is reported as an internal
// error, its text logged and never sent.
package apierr

import (
	"errors"
	"fmt"
	"time"
)

// Kind classifies an error for the HTTP mapping in package api.
type Kind uint8

// Append only: values are logged and asserted in tests.
const (
	Internal         Kind = iota // 500; message replaced by "internal error"
	Invalid                      // 400: malformed or out-of-range input
	Unauthorized                 // 401: missing or unknown key
	Forbidden                    // 403: key without the product, unpublished archive
	NotFound                     // 404
	TooLarge                     // 413: batch over its record limit
	TooMany                      // 429: rate or quota exceeded; RetryAfter set
	Unavailable                  // 503: dependency throttled or down; retryable
	MethodNotAllowed             // 405: the path exists with other methods
	numKinds
)

// NumKinds is the number of kinds, for tables indexed by Kind.
const NumKinds = int(numKinds)

var kindNames = [...]string{"internal", "invalid", "unauthorized", "forbidden", "not_found", "too_large", "too_many", "unavailable", "method_not_allowed"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Error is an error a client can act on.
type Error struct {
	Kind       Kind
	Code       string        // stable snake_case code, e.g. "invalid_legal_location"
	Message    string        // safe to show a client
	RetryAfter time.Duration // for TooMany and Unavailable; 0 when unknown
	Err        error         // cause: logged, never serialized
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Code + ": " + e.Message + ": " + e.Err.Error()
	}
	return e.Code + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

func newf(k Kind, code, format string, args []any) *Error {
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	return &Error{Kind: k, Code: code, Message: msg}
}

// Invalidf returns a 400 error with the given code.
func Invalidf(code, format string, args ...any) *Error {
	return newf(Invalid, code, format, args)
}

// NotFoundf returns a 404 error with code not_found.
func NotFoundf(format string, args ...any) *Error {
	return newf(NotFound, "not_found", format, args)
}

// Unauthorizedf returns a 401 error with the given code.
func Unauthorizedf(code, format string, args ...any) *Error {
	return newf(Unauthorized, code, format, args)
}

// Forbiddenf returns a 403 error with the given code.
func Forbiddenf(code, format string, args ...any) *Error {
	return newf(Forbidden, code, format, args)
}

// TooLargef returns a 413 error with the given code.
func TooLargef(code, format string, args ...any) *Error {
	return newf(TooLarge, code, format, args)
}

// TooManyf returns a 429 error that asks the client to retry after d.
func TooManyf(code string, d time.Duration, format string, args ...any) *Error {
	e := newf(TooMany, code, format, args)
	e.RetryAfter = d
	return e
}

// Unavailablef wraps a dependency failure as a retryable 503; err is logged.
func Unavailablef(err error, format string, args ...any) *Error {
	e := newf(Unavailable, "upstream_unavailable", format, args)
	e.Err = err
	return e
}

// As returns the *Error in err's chain, or nil.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}
