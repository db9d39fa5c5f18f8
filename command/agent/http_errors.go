package agent

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

func newHTTPError(code int, format string, args ...any) error {
	return &httpError{code: code, msg: fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) error {
	return newHTTPError(http.StatusBadRequest, format, args...)
}

func notFound(format string, args ...any) error {
	return newHTTPError(http.StatusNotFound, format, args...)
}

// errorStatus picks the status code for err and the one-line reason that
// goes in the body. Only errors that are the agent's own fault are 5xx.
func errorStatus(err error) (int, string) {
	var he *httpError
	var bodyTooLarge *bodyLimitError
	var tooLarge *http.MaxBytesError
	var invalid *structs.ValidationError
	switch {
	case errors.As(err, &he):
		return he.code, oneLine(he.msg)
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
		return http.StatusNotFound, oneLine(err.Error())
	case errors.Is(err, nomad.ErrInvalidRequest):
		return http.StatusBadRequest, oneLine(err.Error())
	case errors.Is(err, nomad.ErrIndexConflict):
		return http.StatusConflict, oneLine(err.Error())
	case errors.Is(err, nomad.ErrMayStillApply):
		// A write whose answer did not come in time: unlike a 500,
		// the status tells the caller to look before sending it again.
		return http.StatusGatewayTimeout, oneLine(err.Error())
	case errors.Is(err, context.Canceled):
		// The caller went away; nobody reads this, but logs do.
		return 499, "request canceled"
	case errors.Is(err, nomad.ErrLeaderUnreachable),
		errors.Is(err, nomad.ErrNotApplied) && !errors.Is(err, nomad.ErrNoLeader):
		// Not applied, and the cluster may take it again in a moment,
		// or through another server. (No leader stays a 500, as in
		// Nomad.)
		return http.StatusServiceUnavailable, oneLine(err.Error())
	}
	return http.StatusInternalServerError, oneLine(err.Error())
}

// forbiddenReason is the reason of a 403. It starts "Permission denied",
// capitalised as Nomad's, which clients and scripts look for.
func forbiddenReason(err error) string {
	reason := oneLine(err.Error())
	if rest, ok := strings.CutPrefix(reason, "permission denied"); ok {
		return "Permission denied" + rest
	}
	return reason
}

// validationReason lists every validation problem on one line.
func validationReason(v *structs.ValidationError) string {
	msgs := validationMessages(v)
	noun := "problems"
	if len(msgs) == 1 {
		noun = "problem"
	}
	return fmt.Sprintf("invalid job: %d %s: %s", len(msgs), noun, oneLine(strings.Join(msgs, "; ")))
}

// validationMessages returns the problems as strings, as
// api.JobValidateResponse.ValidationErrors lists them.
func validationMessages(v *structs.ValidationError) []string {
	out := make([]string, len(v.Errors))
	for i, err := range v.Errors {
		out[i] = err.Error()
	}
	return out
}

// oneLine folds a multi-line message onto one line.
func oneLine(s string) string {
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
