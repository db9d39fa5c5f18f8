package api

import (
	"errors"
	"fmt"
	"net/http"
)

// UnexpectedResponseError is returned when the agent answers with a status
// outside 2xx. The agent explains a refusal in the body, one line for a 4xx,
// which is kept so that the user sees why.
type UnexpectedResponseError struct {
	StatusCode int
	// Status is the status line, such as "404 Not Found".
	Status string
	// Body is the start of the response body, trimmed of surrounding space.
	Body string
}

func (e UnexpectedResponseError) Error() string {
	reason := e.Body
	if reason == "" {
		reason = http.StatusText(e.StatusCode)
	}
	return fmt.Sprintf("Unexpected response code: %d (%s)", e.StatusCode, reason)
}

// HasStatusCode reports whether the agent answered with code.
func (e UnexpectedResponseError) HasStatusCode(code int) bool {
	return e.StatusCode == code
}

// IsNotFound reports whether err, or an error it wraps, is the agent saying
// that the thing asked for does not exist.
func IsNotFound(err error) bool {
	return hasStatusCode(err, http.StatusNotFound)
}

func hasStatusCode(err error, code int) bool {
	var v UnexpectedResponseError
	if errors.As(err, &v) {
		return v.HasStatusCode(code)
	}
	var p *UnexpectedResponseError
	if errors.As(err, &p) && p != nil {
		return p.HasStatusCode(code)
	}
	return false
}
