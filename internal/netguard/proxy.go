package netguard

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Proxy is an HTTP forward proxy on 127.0.0.1 that connects only where
// its policy allows. It is for programs the client runs on a job
// author's behalf (git), whose connections the client's own dialer never
// sees: pointed at the proxy, every connection they make over HTTP is
// checked at connect time, after DNS resolution and on every redirect,
// as Transport's are. Tunnels (CONNECT, for https) and plain http
// requests in absolute form are served; nothing else.
type Proxy struct {
	policy    *Policy
	dialer    *net.Dialer
	transport http.RoundTripper
	ln        net.Listener
	srv       *http.Server
	conns     sync.WaitGroup

	mu      sync.Mutex
	refused *RefusedError // the first connection the policy refused
	open    map[net.Conn]struct{}
	closed  bool
}

// StartProxy starts a proxy under p on a free port of 127.0.0.1. Close
// stops it.
func (p *Policy) StartProxy() (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start guard proxy: %w", err)
	}
	x := &Proxy{
		policy:    p,
		dialer:    &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: p.control},
		transport: p.Transport(nil, nil),
		ln:        ln,
		open:      make(map[net.Conn]struct{}),
	}
	x.srv = &http.Server{Handler: x, ReadHeaderTimeout: 30 * time.Second}
	go x.srv.Serve(ln) //nolint:errcheck // Close ends it with ErrServerClosed.
	return x, nil
}

// URL is the proxy's address, as http_proxy and git's http.proxy take it.
func (x *Proxy) URL() string { return "http://" + x.ln.Addr().String() }

// Refused is the first connection the policy refused, or nil.
func (x *Proxy) Refused() *RefusedError {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.refused
}

// Close stops the proxy and cuts the tunnels it holds open.
func (x *Proxy) Close() error {
	err := x.srv.Close()
	x.mu.Lock()
	x.closed = true
	for c := range x.open {
		c.Close()
	}
	x.mu.Unlock()
	x.conns.Wait()
	if c, ok := x.transport.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
	return err
}

// note keeps err when it is the policy's refusal, the first one only,
// and reports whether it was.
func (x *Proxy) note(err error) bool {
	var refused *RefusedError
	if !errors.As(err, &refused) {
		return false
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.refused == nil {
		x.refused = refused
	}
	return true
}

func (x *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodConnect:
		x.tunnel(w, r)
	case r.URL.IsAbs() && r.URL.Scheme == "http":
		x.forward(w, r)
	default:
		http.Error(w, "the guard proxy serves CONNECT and absolute http requests only", http.StatusBadRequest)
	}
}

// tunnel connects to the CONNECT request's host:port and splices the
// two connections until either side closes or the proxy stops.
func (x *Proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	upstream, err := x.dialer.DialContext(r.Context(), "tcp", r.Host)
	if err != nil {
		status := http.StatusBadGateway
		if x.note(err) {
			status = http.StatusForbidden
		}
		http.Error(w, err.Error(), status)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		upstream.Close()
		http.Error(w, "cannot tunnel", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
	client, buf, err := hj.Hijack()
	if err != nil {
		upstream.Close()
		return
	}
	if !x.track(client, upstream) {
		client.Close()
		upstream.Close()
		return
	}
	go func() {
		defer x.conns.Done()
		defer x.untrack(client, upstream)
		splice(client, buf, upstream)
	}()
}

// track records a tunnel's connections, for Close to cut; false once
// the proxy is closed.
func (x *Proxy) track(conns ...net.Conn) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return false
	}
	x.conns.Add(1)
	for _, c := range conns {
		x.open[c] = struct{}{}
	}
	return true
}

func (x *Proxy) untrack(conns ...net.Conn) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, c := range conns {
		delete(x.open, c)
	}
}

// splice copies between client (whose already-read bytes are in
// buffered) and upstream until one side is done, then closes both.
func splice(client net.Conn, buffered io.Reader, upstream net.Conn) {
	done := make(chan struct{}, 2)
	go func() {
		io.Copy(upstream, buffered) //nolint:errcheck // ends with either side.
		done <- struct{}{}
	}()
	go func() {
		io.Copy(client, upstream) //nolint:errcheck // ends with either side.
		done <- struct{}{}
	}()
	<-done
	client.Close()
	upstream.Close()
	<-done
}

// hopHeaders are a proxied request's headers meant for the proxy alone.
var hopHeaders = []string{"Proxy-Connection", "Proxy-Authorization", "Connection", "Keep-Alive", "Te", "Trailer", "Upgrade"}

// forward sends a plain http request on through the policy's transport.
func (x *Proxy) forward(w http.ResponseWriter, r *http.Request) {
	out := r.Clone(r.Context())
	out.RequestURI = ""
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	resp, err := x.transport.RoundTrip(out)
	if err != nil {
		status := http.StatusBadGateway
		if x.note(err) {
			status = http.StatusForbidden
		}
		http.Error(w, err.Error(), status)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body) //nolint:errcheck // the client sees a short body.
}
