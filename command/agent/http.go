package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/command/agent/config"
)

// handlerFunc serves one endpoint. It returns the value to send as JSON, or
// an error to send as a one-line reason with its status code. A handler
// that writes the response itself (a non-JSON format) returns nil, nil.
type handlerFunc func(w http.ResponseWriter, r *http.Request) (any, error)

// HTTPServer is the agent's HTTP API: Nomad's paths and JSON, served by
// net/http with a handler around every endpoint that recovers panics, caps
// request bodies and writes errors with the right status.
type HTTPServer struct {
	agent    *Agent
	logger   hclog.Logger
	mux      *http.ServeMux
	listener net.Listener
	srv      *http.Server
	// forwarders reach the other agents requests are forwarded to.
	forwarders forwardTransports

	// ctx is every request's base context; cancelling it on shutdown ends
	// blocking queries at once instead of after their wait.
	ctx    context.Context
	cancel context.CancelFunc

	// limits are the agent's limits block: timeouts, body sizes, job and
	// jobspec sizes.
	limits config.LimitsConfig
	// heavySlots bounds the requests that decode a job or parse a
	// jobspec at once (see heavy).
	heavySlots chan struct{}

	mu sync.RWMutex
	// routes maps a path pattern to the route of each method it allows.
	routes map[string]map[string]*route

	started   bool
	serveDone chan struct{}
}

// newHTTPServer builds the API server on ln and registers every endpoint;
// Serve starts it.
func newHTTPServer(agent *Agent, ln net.Listener, logger hclog.Logger) *HTTPServer {
	ctx, cancel := context.WithCancel(context.Background())
	limits := agent.config.Limits
	s := &HTTPServer{
		agent:      agent,
		logger:     logger,
		mux:        http.NewServeMux(),
		listener:   ln,
		ctx:        ctx,
		cancel:     cancel,
		limits:     limits,
		heavySlots: make(chan struct{}, 2*runtime.GOMAXPROCS(0)),
		routes:     map[string]map[string]*route{},
		serveDone:  make(chan struct{}),
	}
	s.forwarders = agent.forwardTransports()
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeErrorReason(w, http.StatusNotFound, notFoundReason(r.Method, r.URL.Path))
	})
	s.registerRoutes()
	s.registerUI()
	s.srv = &http.Server{
		Handler: s.mux,
		// A client that sends its request slowly, or reads its answer
		// slowly, holds a connection (a file descriptor) only this long;
		// routes marked longLived are exempt from the whole-request
		// timeouts (see serveLongLived).
		ReadHeaderTimeout: limits.HTTPReadHeaderTimeout,
		ReadTimeout:       limits.HTTPReadTimeout,
		WriteTimeout:      limits.HTTPWriteTimeout,
		IdleTimeout:       limits.HTTPIdleTimeout,
		BaseContext:       func(net.Listener) context.Context { return s.ctx },
		ErrorLog:          logger.StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true}),
	}
	return s
}

// Addr is the address the server listens on, with the real port when the
// configured one was 0.
func (s *HTTPServer) Addr() string { return s.listener.Addr().String() }

// Serve starts serving in the background.
func (s *HTTPServer) Serve() {
	s.started = true
	go func() {
		defer close(s.serveDone)
		if err := s.srv.Serve(s.listener); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.logger.Error("HTTP server stopped", "error", err)
		}
	}()
}

// Shutdown stops accepting requests, ends blocking queries, and waits up to
// the context's deadline for requests under way to finish.
func (s *HTTPServer) Shutdown(ctx context.Context) error {
	s.cancel()
	if !s.started {
		return s.listener.Close()
	}
	err := s.srv.Shutdown(ctx)
	if err != nil {
		s.srv.Close()
	}
	<-s.serveDone
	return err
}

// handle registers h for a pattern of the form "METHOD /path/{id}", to be
// called once the caller's ACL token has been found to grant need, and
// served as the options say.
func (s *HTTPServer) handle(pattern string, need access, h handlerFunc, opts ...routeOption) {
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		panic(fmt.Sprintf("route %q has no method", pattern))
	}
	rt := &route{h: h, need: need, body: defaultBody}
	for _, opt := range opts {
		opt(rt)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	methods, known := s.routes[path]
	if !known {
		methods = map[string]*route{}
		s.routes[path] = methods
		s.mux.Handle(path, s.dispatch(path))
	}
	if _, dup := methods[method]; dup {
		panic(fmt.Sprintf("route %q registered twice", pattern))
	}
	methods[method] = rt
}

// registeredRoute is a route as the table lists it.
type registeredRoute struct {
	method, path string
	need         access
}

// routeTable lists every registered route, sorted by path and method.
func (s *HTTPServer) routeTable() []registeredRoute {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []registeredRoute
	for path, methods := range s.routes {
		for method, rt := range methods {
			out = append(out, registeredRoute{method: method, path: path, need: rt.need})
		}
	}
	slices.SortFunc(out, func(a, b registeredRoute) int {
		if c := strings.Compare(a.path, b.path); c != 0 {
			return c
		}
		return strings.Compare(a.method, b.method)
	})
	return out
}

// dispatch picks the handler of the request's method for one path, and
// answers 405 with the allowed methods when there is none.
func (s *HTTPServer) dispatch(path string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.RLock()
		methods := s.routes[path]
		rt, ok := methods[r.Method]
		allowed := make([]string, 0, len(methods))
		for m := range methods {
			allowed = append(allowed, m)
		}
		s.mu.RUnlock()
		if !ok {
			slices.Sort(allowed)
			w.Header().Set("Allow", strings.Join(allowed, ", "))
			writeErrorReason(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s not allowed on %s; use %s", r.Method, r.URL.Path, strings.Join(allowed, " or ")))
			return
		}
		s.serveRoute(w, r, rt)
	})
}

// serveRoute serves one request of rt: with its body cap, exempt from the
// whole-request timeouts when it is long-lived, and its handler run only
// once the caller's token has been found to grant what the route needs.
func (s *HTTPServer) serveRoute(w http.ResponseWriter, r *http.Request, rt *route) {
	if r.Body != nil && r.Body != http.NoBody {
		limit, name := rt.body(s.limits)
		r.Body = &limitedBody{ReadCloser: http.MaxBytesReader(w, r.Body, limit), limit: limit, name: name}
	}
	if rt.longLived || isBlockingQuery(r) {
		w, r = s.serveLongLived(w, r)
	}
	if rt.heavy {
		release, ok := s.takeHeavySlot(w, r)
		if !ok {
			return
		}
		defer release()
	}
	s.serve(w, r, func(w http.ResponseWriter, r *http.Request) (any, error) {
		r, err := s.authorize(r, rt.need)
		if err != nil {
			return nil, err
		}
		return rt.h(w, r)
	})
}

// serve runs one handler: it recovers a panic as a 500 (the agent keeps
// running), and writes the result as JSON or the error as its status and
// reason.
func (s *HTTPServer) serve(w http.ResponseWriter, r *http.Request, h handlerFunc) {
	start := time.Now()
	rw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.logger.Error("HTTP handler panicked", "method", r.Method, "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
			if !rw.wroteHeader {
				writeErrorReason(rw, http.StatusInternalServerError, oneLine(fmt.Sprintf("internal error: %v", p)))
			}
		}
		s.logger.Debug("request complete", "method", r.Method, "path", r.URL.Path, "status", rw.status, "duration", time.Since(start))
	}()

	obj, err := h(rw, r)
	if err != nil {
		code, reason := errorStatus(err)
		if code >= 500 && code != 501 {
			s.logger.Error("request failed", "method", r.Method, "path", r.URL.Path, "status", code, "error", err)
		}
		writeErrorReason(rw, code, reason)
		return
	}
	if obj == nil {
		return
	}
	s.writeJSON(rw, r, obj)
}

// writeJSON encodes obj whole before writing anything, so that an encoding
// failure is still a clean 500.
func (s *HTTPServer) writeJSON(w http.ResponseWriter, r *http.Request, obj any) {
	s.writeJSONStatus(w, r, http.StatusOK, obj)
}

// writeJSONStatus is writeJSON with another status than 200, for an answer
// whose body says what is wrong (an unhealthy agent).
func (s *HTTPServer) writeJSONStatus(w http.ResponseWriter, r *http.Request, code int, obj any) {
	var body []byte
	var err error
	if flagSet(r.URL.Query(), "pretty") {
		body, err = json.MarshalIndent(obj, "", "    ")
	} else {
		body, err = json.Marshal(obj)
	}
	if err != nil {
		s.logger.Error("encode response", "path", r.URL.Path, "error", err)
		writeErrorReason(w, http.StatusInternalServerError, "internal error: encode response: "+oneLine(err.Error()))
		return
	}
	body = append(body, '\n')
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(code)
	w.Write(body)
}

// writeErrorReason writes an error response: the status and a one-line
// reason in plain text.
func writeErrorReason(w http.ResponseWriter, code int, reason string) {
	h := w.Header()
	h.Del("Content-Length")
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	fmt.Fprintln(w, reason)
}

// statusWriter remembers the status a handler wrote, for the panic
// recovery and the request log.
type statusWriter struct {
	http.ResponseWriter
	status      int
	wroteHeader bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wroteHeader {
		w.status = code
		w.wroteHeader = true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	w.wroteHeader = true
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// decodeBody decodes a JSON request body into out, naming what it was
// decoding in the error.
func decodeBody(r *http.Request, out any, what string) error {
	if r.Body == nil || r.Body == http.NoBody {
		return badRequest("missing request body: expected %s as JSON", what)
	}
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(out); err != nil {
		return decodeError(err, what)
	}
	if dec.More() {
		return badRequest("failed to decode %s: unexpected data after the JSON value", what)
	}
	return nil
}

// decodeError turns a JSON decoding error into the error the client sees:
// 413 for an oversized body, else 400 naming the JSON problem.
func decodeError(err error, what string) error {
	var tooLarge *bodyLimitError
	if errors.As(err, &tooLarge) {
		return err
	}
	if errors.Is(err, io.EOF) {
		return badRequest("failed to decode %s: empty request body", what)
	}
	return badRequest("failed to decode %s: %v", what, err)
}

// readBody reads a whole request body for handlers that look at it twice
// (as typed values and as raw JSON).
func readBody(r *http.Request, what string) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, badRequest("missing request body: expected %s as JSON", what)
	}
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *bodyLimitError
		if errors.As(err, &tooLarge) {
			return nil, err
		}
		return nil, badRequest("read request body: %v", err)
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil, badRequest("failed to decode %s: empty request body", what)
	}
	return data, nil
}

// unmarshalBody decodes JSON read by readBody.
func unmarshalBody(data []byte, out any, what string) error {
	if err := json.Unmarshal(data, out); err != nil {
		return badRequest("failed to decode %s: %v", what, err)
	}
	return nil
}
