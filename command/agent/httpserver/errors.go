package httpserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// httpError is an error with the HTTP status it answers with.
type httpError struct {
	code int
	msg  string
}

func (e *httpError) Error() string { return e.msg }

// NewError is an error that answers with status code and the formatted
// message as its reason.
func NewError(code int, format string, args ...any) error {
	return &httpError{code: code, msg: fmt.Sprintf(format, args...)}
}

// BadRequest is a 400: the request is wrong, as the message says.
func BadRequest(format string, args ...any) error {
	return NewError(http.StatusBadRequest, format, args...)
}

// NotFound is a 404: what the request names does not exist.
func NotFound(format string, args ...any) error {
	return NewError(http.StatusNotFound, format, args...)
}

// ErrorStatus picks the status code for err and the one-line reason that
// goes in the body. Only errors that are the agent's own fault are 5xx.
func ErrorStatus(err error) (int, string) {
	var he *httpError
	var bodyTooLarge *bodyLimitError
	var tooLarge *http.MaxBytesError
	var invalid *structs.ValidationError
	switch {
	case errors.As(err, &he):
		return he.code, OneLine(he.msg)
	case errors.As(err, &bodyTooLarge):
		return http.StatusRequestEntityTooLarge, bodyTooLarge.Error()
	case errors.As(err, &tooLarge):
		return http.StatusRequestEntityTooLarge, fmt.Sprintf("request body too large: the limit is %d bytes", tooLarge.Limit)
	case errors.As(err, &invalid):
		return http.StatusBadRequest, validationReason(invalid)
	case errors.Is(err, nomad.ErrPermissionDenied), errors.Is(err, nomad.ErrTokenNotFound),
		errors.Is(err, nomad.ErrTokenExpired):
		return http.StatusForbidden, forbiddenReason(err)
	case errors.Is(err, nomad.ErrNotFound):
		return http.StatusNotFound, OneLine(err.Error())
	case errors.Is(err, nomad.ErrInvalidRequest):
		return http.StatusBadRequest, OneLine(err.Error())
	case errors.Is(err, nomad.ErrIndexConflict):
		return http.StatusConflict, OneLine(err.Error())
	case errors.Is(err, nomad.ErrMayStillApply):
		// A write whose answer did not come in time: unlike a 500,
		// the status tells the caller to look before sending it again.
		return http.StatusGatewayTimeout, OneLine(err.Error())
	case errors.Is(err, context.Canceled):
		// The caller went away; nobody reads this, but logs do.
		return 499, "request canceled"
	case errors.Is(err, nomad.ErrLeaderUnreachable),
		errors.Is(err, nomad.ErrNotApplied) && !errors.Is(err, nomad.ErrNoLeader):
		// Not applied, and the cluster may take it again in a moment,
		// or through another server. (No leader stays a 500, as in
		// Nomad.)
		return http.StatusServiceUnavailable, OneLine(err.Error())
	}
	return http.StatusInternalServerError, OneLine(err.Error())
}

// forbiddenReason is the reason of a 403. It starts "Permission denied",
// capitalised as Nomad's, which clients and scripts look for.
func forbiddenReason(err error) string {
	reason := OneLine(err.Error())
	if rest, ok := strings.CutPrefix(reason, "permission denied"); ok {
		return "Permission denied" + rest
	}
	return reason
}

// validationReason lists every validation problem on one line.
func validationReason(v *structs.ValidationError) string {
	msgs := ValidationMessages(v)
	noun := "problems"
	if len(msgs) == 1 {
		noun = "problem"
	}
	return fmt.Sprintf("invalid job: %d %s: %s", len(msgs), noun, OneLine(strings.Join(msgs, "; ")))
}

// ValidationMessages returns the problems as strings, as
// api.JobValidateResponse.ValidationErrors lists them.
func ValidationMessages(v *structs.ValidationError) []string {
	out := make([]string, len(v.Errors))
	for i, err := range v.Errors {
		out[i] = err.Error()
	}
	return out
}

// OneLine folds a multi-line message onto one line.
func OneLine(s string) string {
	s = strings.TrimSpace(s)
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
	for i, f := range fields {
		fields[i] = strings.TrimSpace(f)
	}
	return strings.Join(fields, "; ")
}
