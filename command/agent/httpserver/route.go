package httpserver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/drover-io/drover/command/agent/config"
)

// Route is one method of one path: its handler, what it needs of the
// caller's ACL token, and how it is served.
type Route struct {
	Method, Path string
	// Need is what the route needs of the caller's ACL token.
	Need    Access
	Handler HandlerFunc
	// Body is the cap on the request body and the limit's name; nil is
	// limits.http_max_body_size.
	Body func(config.LimitsConfig) (int64, string)
	// LongLived marks a route whose answer may take longer than the
	// server's write timeout: a stream, or a body that may be large.
	LongLived bool
	// Heavy marks a route whose handler turns a body of megabytes into
	// many times that in memory, and CPU: see takeHeavySlot.
	Heavy bool
	// Handshake marks a websocket route whose caller may send its token
	// in the first frame: see TokenInHandshake.
	Handshake bool
}

// RouteOption sets how a route is served; NewRoute takes them.
type RouteOption func(*Route)

// NewRoute is the route of a pattern of the form "METHOD /path/{id}",
// to be called once the caller's ACL token has been found to grant need,
// and served as the options say. It panics on a pattern without a method:
// the route table is code, not input.
func NewRoute(pattern string, need Access, h HandlerFunc, opts ...RouteOption) Route {
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		panic(fmt.Sprintf("route %q has no method", pattern))
	}
	rt := Route{Method: method, Path: path, Need: need, Handler: h, Body: defaultBody}
	for _, opt := range opts {
		opt(&rt)
	}
	return rt
}

// body is the route's body cap.
func (rt *Route) body() func(config.LimitsConfig) (int64, string) {
	if rt.Body == nil {
		return defaultBody
	}
	return rt.Body
}

// defaultBody caps the body of a request that carries no job or jobspec.
func defaultBody(l config.LimitsConfig) (int64, string) {
	return l.HTTPMaxBodySize, "limits.http_max_body_size"
}

// JobBody is the option of the routes whose body is a job (register,
// plan, validate): the job itself is held to job_max_size once decoded;
// the body may be larger by whitespace and escapes that the size of the
// job does not count, up to twice as large.
func JobBody(r *Route) {
	r.Body = func(l config.LimitsConfig) (int64, string) { return 2 * l.JobMaxSize, "twice limits.job_max_size" }
	r.Heavy = true
}

// JobspecBody is the option of /v1/jobs/parse, whose body carries a
// jobspec as a JSON string, with its variables: twice hcl_max_size covers
// the escapes of any jobspec that fits the limit.
func JobspecBody(r *Route) {
	r.Body = func(l config.LimitsConfig) (int64, string) { return 2 * l.HCLMaxSize, "twice limits.hcl_max_size" }
	r.Heavy = true
}

// BodyLimit caps a route's body at n bytes, named name in refusals.
func BodyLimit(n int64, name string) RouteOption {
	return func(r *Route) {
		r.Body = func(config.LimitsConfig) (int64, string) { return n, name }
	}
}

// LongLived exempts a route from the server's whole-request timeouts:
// use it for streams (the event stream, following logs) and for bodies or
// answers that may rightly take minutes. Blocking queries (a GET with
// ?index) are exempt on every route without it. See serveLongLived.
func LongLived(r *Route) { r.LongLived = true }

// takeHeavySlot reads the body of a heavy request, then waits for one of
// the server's heavy slots (twice as many as there are cores) and returns
// the function that gives it back. Decoding a job of megabytes, checking
// it and parsing a jobspec cost many times the body in memory, and CPU:
// so that many clients at once cannot multiply that, only so many run at
// once, and the rest wait their turn, or give up with their client. The
// body is read first, outside a slot, so that a client that sends slowly
// holds no slot. A failed read or a client gone is answered here; ok is
// false then.
func (s *Server) takeHeavySlot(w http.ResponseWriter, r *http.Request) (release func(), ok bool) {
	if r.Body != nil && r.Body != http.NoBody {
		data, err := io.ReadAll(r.Body)
		if err != nil {
			code, reason := ErrorStatus(err)
			if code == http.StatusInternalServerError {
				code, reason = http.StatusBadRequest, "read request body: "+OneLine(err.Error())
			}
			WriteErrorReason(w, code, reason)
			return nil, false
		}
		r.Body = http.NoBody
		if len(data) > 0 {
			r.Body = io.NopCloser(bytes.NewReader(data))
		}
	}
	select {
	case s.heavySlots <- struct{}{}:
		return func() { <-s.heavySlots }, true
	case <-r.Context().Done():
		code, reason := ErrorStatus(r.Context().Err())
		WriteErrorReason(w, code, reason)
		return nil, false
	}
}

// bodyLimitError is a request body over its route's cap: 413, naming the
// limit.
type bodyLimitError struct {
	limit int64
	name  string
	err   *http.MaxBytesError
}

func (e *bodyLimitError) Error() string {
	return fmt.Sprintf("request body too large: the limit is %d bytes (%s)", e.limit, e.name)
}

func (e *bodyLimitError) Unwrap() error { return e.err }

// limitedBody is a request body capped by http.MaxBytesReader whose error
// names the limit.
type limitedBody struct {
	io.ReadCloser
	limit int64
	name  string
}

func (b *limitedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		err = &bodyLimitError{limit: b.limit, name: b.name, err: tooLarge}
	}
	return n, err
}

// IsBlockingQuery reports whether r is a blocking query: a read that
// waits, up to its ?wait, for the data to change past ?index.
func IsBlockingQuery(r *http.Request) bool {
	return r.Method == http.MethodGet && r.URL.Query().Get("index") != ""
}

// serveLongLived exempts one request from the server's whole-request
// timeouts, both counted from the request's start, which would cut a
// blocking query or a stream (the write timeout) and a large upload (the
// read timeout). Instead, every read of the body and every write of the
// answer gets its own deadline, the same timeout from that moment: a
// client that keeps sending and reading keeps its request, one that
// stalls for a whole timeout loses it. Once the body is read, the
// connection has no read deadline: net/http's watch for the client going
// away (which cancels the request's context) runs until it does.
func (s *Server) serveLongLived(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, *http.Request) {
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Time{}); err != nil {
		s.logger.Debug("clear read deadline", "path", r.URL.Path, "error", err)
	}
	if err := rc.SetWriteDeadline(time.Time{}); err != nil {
		s.logger.Debug("clear write deadline", "path", r.URL.Path, "error", err)
	}
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = &progressBody{ReadCloser: r.Body, rc: rc, timeout: s.limits.HTTPReadTimeout}
	}
	return &longLivedWriter{ResponseWriter: w, rc: rc, timeout: s.limits.HTTPWriteTimeout}, r
}

// progressBody gives each read of a long-lived request's body a deadline
// of its own.
type progressBody struct {
	io.ReadCloser
	rc      *http.ResponseController
	timeout time.Duration
}

func (b *progressBody) Read(p []byte) (int, error) {
	if b.timeout > 0 {
		_ = b.rc.SetReadDeadline(time.Now().Add(b.timeout))
	}
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		// Whole or failed, the body is done: the connection's watch for
		// the client going away must not time out.
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// longLivedWriter gives each write of a long-lived answer a deadline of
// its own.
type longLivedWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (w *longLivedWriter) extend() {
	if w.timeout > 0 {
		_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	}
}

func (w *longLivedWriter) WriteHeader(code int) {
	w.extend()
	w.ResponseWriter.WriteHeader(code)
}

func (w *longLivedWriter) Write(p []byte) (int, error) {
	w.extend()
	return w.ResponseWriter.Write(p)
}

// Flush sends what is buffered, within a deadline of its own.
func (w *longLivedWriter) Flush() {
	w.extend()
	_ = w.rc.Flush()
}

// FlushError is Flush that reports a failure, for http.ResponseController.
func (w *longLivedWriter) FlushError() error {
	w.extend()
	return w.rc.Flush()
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *longLivedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
