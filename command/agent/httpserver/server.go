package httpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// HandlerFunc serves one endpoint. It returns the value to send as JSON, or
// an error to send as a one-line reason with its status code. A handler
// that writes the response itself (a non-JSON format) returns nil, nil.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) (any, error)

// AuthorizeFunc checks that the caller of r may call a route that needs
// need. On success it returns the request to serve, whose context may
// carry who the caller is; on failure, the error to answer with.
type AuthorizeFunc func(r *http.Request, need Access) (*http.Request, error)

// Options are what a Server needs of the agent.
type Options struct {
	Logger hclog.Logger
	// Limits are the agent's limits block: timeouts, body sizes, job and
	// jobspec sizes.
	Limits config.LimitsConfig
	// Authorize runs before every route's handler.
	Authorize AuthorizeFunc
}

// Server is the agent's HTTP API machinery: Nomad's paths and JSON, served
// by net/http with a handler around every endpoint that checks the
// caller, recovers panics, caps request bodies and writes errors with the
// right status.
type Server struct {
	logger    hclog.Logger
	mux       *http.ServeMux
	listener  net.Listener
	srv       *http.Server
	authorize AuthorizeFunc

	// ctx is every request's base context; cancelling it on shutdown ends
	// blocking queries at once instead of after their wait.
	ctx    context.Context
	cancel context.CancelFunc

	limits config.LimitsConfig
	// heavySlots bounds the requests that decode a job or parse a
	// jobspec at once (see takeHeavySlot).
	heavySlots chan struct{}

	mu sync.RWMutex
	// routes maps a path pattern to the route of each method it allows.
	routes map[string]map[string]*Route

	started   bool
	serveDone chan struct{}
	// unused are the connections with no request yet, closed on shutdown.
	unused unusedConns
}

// New builds the API server on ln, answering 404 to every path until
// routes are registered with Handle; Serve starts it.
func New(ln net.Listener, opts Options) *Server {
	ctx, cancel := context.WithCancel(context.Background())
	limits := opts.Limits
	s := &Server{
		logger:     opts.Logger,
		mux:        http.NewServeMux(),
		listener:   ln,
		authorize:  opts.Authorize,
		ctx:        ctx,
		cancel:     cancel,
		limits:     limits,
		heavySlots: make(chan struct{}, 2*runtime.GOMAXPROCS(0)),
		routes:     map[string]map[string]*Route{},
		serveDone:  make(chan struct{}),
	}
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		WriteErrorReason(w, http.StatusNotFound, notFoundReason(r.Method, r.URL.Path))
	})
	s.srv = &http.Server{
		Handler: s.mux,
		// A client that sends its request slowly, or reads its answer
		// slowly, holds a connection (a file descriptor) only this long;
		// long-lived routes are exempt from the whole-request timeouts
		// (see serveLongLived).
		ReadHeaderTimeout: limits.HTTPReadHeaderTimeout,
		ReadTimeout:       limits.HTTPReadTimeout,
		WriteTimeout:      limits.HTTPWriteTimeout,
		IdleTimeout:       limits.HTTPIdleTimeout,
		BaseContext:       func(net.Listener) context.Context { return s.ctx },
		ConnState:         s.unused.track,
		ErrorLog:          s.logger.StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true}),
	}
	return s
}

// Addr is the address the server listens on, with the real port when the
// configured one was 0.
func (s *Server) Addr() string { return s.listener.Addr().String() }

// Serve starts serving in the background.
func (s *Server) Serve() {
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
func (s *Server) Shutdown(ctx context.Context) error {
	s.cancel()
	if !s.started {
		return s.listener.Close()
	}
	s.unused.closeAll()
	err := s.srv.Shutdown(ctx)
	if err != nil {
		s.srv.Close()
	}
	<-s.serveDone
	return err
}

// Mount serves h for pattern outside the route table: no ACL check, no
// body cap, no JSON. It is for what is not the API, such as the web UI.
func (s *Server) Mount(pattern string, h http.Handler) {
	s.mux.Handle(pattern, h)
}

// Handle registers routes. It panics on a route without a method or
// registered twice: the table is the agent's code, not input.
func (s *Server) Handle(routes ...Route) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rt := range routes {
		s.handle(rt)
	}
}

func (s *Server) handle(rt Route) {
	if rt.Method == "" {
		panic(fmt.Sprintf("route %q has no method", rt.Path))
	}
	methods, known := s.routes[rt.Path]
	if !known {
		methods = map[string]*Route{}
		s.routes[rt.Path] = methods
		s.mux.Handle(rt.Path, s.dispatch(rt.Path))
	}
	if _, dup := methods[rt.Method]; dup {
		panic(fmt.Sprintf("route %q registered twice", rt.Method+" "+rt.Path))
	}
	methods[rt.Method] = &rt
}

// WrapHandlers replaces the handler of every registered route with what
// wrap makes of it. Tests use it to see which requests reach a handler.
func (s *Server) WrapHandlers(wrap func(rt Route, h HandlerFunc) HandlerFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, methods := range s.routes {
		for method, rt := range methods {
			wrapped := *rt
			wrapped.Handler = wrap(*rt, rt.Handler)
			methods[method] = &wrapped
		}
	}
}

// ServeHTTP serves one request as the server would, for tests that call
// a route without a connection.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mux.ServeHTTP(w, r)
}

// Routes lists every registered route, sorted by path and method.
func (s *Server) Routes() []Route {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []Route
	for _, methods := range s.routes {
		for _, rt := range methods {
			out = append(out, *rt)
		}
	}
	slices.SortFunc(out, func(a, b Route) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Method, b.Method)
	})
	return out
}

// dispatch picks the handler of the request's method for one path, and
// answers 405 with the allowed methods when there is none.
func (s *Server) dispatch(path string) http.Handler {
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
			WriteErrorReason(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s not allowed on %s; use %s", r.Method, r.URL.Path, strings.Join(allowed, " or ")))
			return
		}
		s.serveRoute(w, r, rt)
	})
}

// serveRoute serves one request of rt: with its body cap, exempt from the
// whole-request timeouts when it is long-lived, and its handler run only
// once the caller's token has been found to grant what the route needs.
func (s *Server) serveRoute(w http.ResponseWriter, r *http.Request, rt *Route) {
	if r.Body != nil && r.Body != http.NoBody {
		limit, name := rt.body()(s.limits)
		r.Body = &limitedBody{ReadCloser: http.MaxBytesReader(w, r.Body, limit), limit: limit, name: name}
	}
	if rt.LongLived || IsBlockingQuery(r) {
		w, r = s.serveLongLived(w, r)
	}
	if rt.Heavy {
		release, ok := s.takeHeavySlot(w, r)
		if !ok {
			return
		}
		defer release()
	}
	if rt.Handshake && WantsHandshake(r) {
		s.serve(w, s.deferCheck(r, rt), rt.Handler)
		return
	}
	s.serve(w, r, func(w http.ResponseWriter, r *http.Request) (any, error) {
		r, err := s.authorize(r, rt.Need)
		if err != nil {
			return nil, err
		}
		return rt.Handler(w, r)
	})
}

// serve runs one handler: it recovers a panic as a 500 (the agent keeps
// running), and writes the result as JSON or the error as its status and
// reason.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, h HandlerFunc) {
	start := time.Now()
	rw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.logger.Error("HTTP handler panicked", "method", r.Method, "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
			if !rw.wroteHeader {
				WriteErrorReason(rw, http.StatusInternalServerError, OneLine(fmt.Sprintf("internal error: %v", p)))
			}
		}
		s.logger.Debug("request complete", "method", r.Method, "path", r.URL.Path, "status", rw.status, "duration", time.Since(start))
	}()

	obj, err := h(rw, r)
	if err != nil {
		code, reason := ErrorStatus(err)
		if code >= 500 && code != 501 {
			s.logger.Error("request failed", "method", r.Method, "path", r.URL.Path, "status", code, "error", err)
		}
		WriteErrorReason(rw, code, reason)
		return
	}
	if obj == nil {
		return
	}
	s.WriteJSON(rw, r, obj)
}

// WriteJSON encodes obj whole before writing anything, so that an encoding
// failure is still a clean 500.
func (s *Server) WriteJSON(w http.ResponseWriter, r *http.Request, obj any) {
	s.WriteJSONStatus(w, r, http.StatusOK, obj)
}

// WriteJSONStatus is WriteJSON with another status than 200, for an answer
// whose body says what is wrong (an unhealthy agent).
func (s *Server) WriteJSONStatus(w http.ResponseWriter, r *http.Request, code int, obj any) {
	var body []byte
	var err error
	if FlagSet(r.URL.Query(), "pretty") {
		body, err = json.MarshalIndent(obj, "", "    ")
	} else {
		body, err = json.Marshal(obj)
	}
	if err != nil {
		s.logger.Error("encode response", "path", r.URL.Path, "error", err)
		WriteErrorReason(w, http.StatusInternalServerError, "internal error: encode response: "+OneLine(err.Error()))
		return
	}
	body = append(body, '\n')
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(code)
	w.Write(body)
}

// WriteErrorReason writes an error response: the status and a one-line
// reason in plain text.
func WriteErrorReason(w http.ResponseWriter, code int, reason string) {
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
