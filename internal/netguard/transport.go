package netguard

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"net/url"
	"sync/atomic"
	"syscall"
	"time"
)

// Transport returns an http.RoundTripper, net/http's default transport
// with tlsConfig (nil is the default) and the given choice of proxy (nil
// is none; http.ProxyFromEnvironment reads HTTP_PROXY and its kin), that
// connects only where p allows:
//
//   - A direct connection is checked at connect time, on the address
//     dialed, whatever name or redirect led there.
//   - A request sent through a proxy is checked before it is handed over:
//     the target's address, or every address its name resolves to on the
//     client. The proxy itself, the operator's choice, is reached
//     whatever its address; it resolves the name again on its own, so it
//     should hold the same rules, and a name the client cannot resolve is
//     left to it.
//
// When a request fails after a connection to an internal address (any
// address of a Class) was tried, its error says only that: the cause
// (connection refused, timed out, not HTTP, a TLS failure, the bytes
// that answered) would tell what listens there. The cause stays
// reachable through errors.As with *UnreachableError, for the operator's
// log.
func (p *Policy) Transport(tlsConfig *tls.Config, proxy func(*http.Request) (*url.URL, error)) http.RoundTripper {
	guarded := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: p.control}
	direct := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	// The default transport dials with DialContext alone: replaced, no
	// connection bypasses it.
	inner := http.DefaultTransport.(*http.Transport).Clone()
	inner.TLSClientConfig = tlsConfig
	inner.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if proxy, ok := ctx.Value(proxyKey{}).(string); ok && proxy == addr {
			return direct.DialContext(ctx, network, addr)
		}
		return guarded.DialContext(ctx, network, addr)
	}
	inner.Proxy = func(req *http.Request) (*url.URL, error) {
		u, _ := req.Context().Value(proxyURLKey{}).(*url.URL)
		return u, nil
	}
	return &transport{policy: p, proxy: proxy, inner: inner}
}

// proxyKey carries, in a request's context, the address ("host:port") of
// the proxy the request goes through, the one address its dial may reach
// unchecked; proxyURLKey carries the proxy's URL.
type (
	proxyKey    struct{}
	proxyURLKey struct{}
)

type transport struct {
	policy *Policy
	// proxy chooses the proxy of a request; nil is none.
	proxy func(*http.Request) (*url.URL, error)
	inner *http.Transport
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	proxy, err := t.proxyFor(req)
	if err != nil {
		return nil, err
	}
	if proxy != nil {
		if err := t.checkTarget(ctx, req.URL); err != nil {
			return nil, err
		}
		ctx = context.WithValue(ctx, proxyURLKey{}, proxy)
		ctx = context.WithValue(ctx, proxyKey{}, canonicalAddr(proxy))
	}

	var internal atomic.Bool
	mark := func(addr string) {
		ap, err := netip.ParseAddrPort(addr)
		if err != nil || Classify(ap.Addr()) != 0 {
			internal.Store(true)
		}
	}
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		ConnectStart: func(_, addr string) { mark(addr) },
		GotConn:      func(info httptrace.GotConnInfo) { mark(info.Conn.RemoteAddr().String()) },
	})
	resp, err := t.inner.RoundTrip(req.WithContext(ctx))
	if err == nil || !internal.Load() || req.Context().Err() != nil {
		return resp, err
	}
	if refused := (*RefusedError)(nil); errors.As(err, &refused) {
		return nil, refused
	}
	return nil, &UnreachableError{Host: req.URL.Host, Err: err}
}

// CloseIdleConnections closes the connections kept alive for reuse.
func (t *transport) CloseIdleConnections() { t.inner.CloseIdleConnections() }

func (t *transport) proxyFor(req *http.Request) (*url.URL, error) {
	if t.proxy == nil {
		return nil, nil
	}
	u, err := t.proxy(req)
	if err != nil {
		return nil, fmt.Errorf("choose proxy: %w", err)
	}
	return u, nil
}

// checkTarget checks the address of a request that a proxy will connect
// to: the literal address in target, or every address the client
// resolves its name to.
func (t *transport) checkTarget(ctx context.Context, target *url.URL) error {
	port := uint16(80)
	if target.Scheme == "https" {
		port = 443
	}
	if p := target.Port(); p != "" {
		n, err := netip.ParseAddrPort("0.0.0.0:" + p)
		if err != nil {
			return fmt.Errorf("port %q: not a port number", p)
		}
		port = n.Port()
	}
	host := target.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		return t.policy.Check(netip.AddrPortFrom(ip, port))
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		// Names the client cannot resolve are the proxy's to resolve.
		return nil
	}
	for _, ip := range ips {
		if err := t.policy.Check(netip.AddrPortFrom(ip, port)); err != nil {
			return err
		}
	}
	return nil
}

// canonicalAddr is the "host:port" net/http dials to reach proxy.
func canonicalAddr(proxy *url.URL) string {
	port := proxy.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "socks5": "1080", "socks5h": "1080"}[proxy.Scheme]
	}
	return net.JoinHostPort(proxy.Hostname(), port)
}

// control checks the address a connection is about to be made to; it
// runs after the socket is made and before it connects.
// DialControl is a net.Dialer's Control that refuses a connection the
// policy refuses, on the address actually dialed: for connections made on
// a job author's behalf outside an HTTP fetch (a tcp check).
func (p *Policy) DialControl(network, address string, c syscall.RawConn) error {
	return p.control(network, address, c)
}

func (p *Policy) control(_, address string, _ syscall.RawConn) error {
	addr, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("connection to %q refused by the client's policy: not an IP address and port", address)
	}
	return p.Check(addr)
}

// UnreachableError is a request that failed after the client tried an
// internal address: its message leaves the cause out.
type UnreachableError struct {
	// Host is the request's host, as its URL names it.
	Host string
	// Err is the cause, for the operator's log only.
	Err error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("no answer from %s (the cause, at an internal address, is in the client's log only)", e.Host)
}

func (e *UnreachableError) Unwrap() error { return e.Err }
