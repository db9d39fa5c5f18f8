package httpserver

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-metrics"
)

// refusalWriteTimeout bounds the write of a refusal to a client over its
// connection cap, so that refusing costs next to nothing.
const refusalWriteTimeout = 10 * time.Millisecond

// refusalLinger and refusalDrainBytes bound what a refused connection may
// still send before it is closed.
const (
	refusalLinger     = 100 * time.Millisecond
	refusalDrainBytes = 64 << 10
)

// refusalHandshakeTimeout bounds the TLS handshake of a connection over
// its client's cap, made only to answer it 429: tighter than a served
// connection's, as the answer is a courtesy.
const refusalHandshakeTimeout = time.Second

// maxRefusalsInFlight bounds the connections over their cap being
// answered at once. Past it a refused connection is closed unanswered, so
// that answering refusals, a TLS handshake each on an HTTPS port, never
// holds more file descriptors or CPU than this many connections do.
const maxRefusalsInFlight = 64

// LimitConnsPerClient caps the connections open at once from one IP
// address (limits.http_max_conns_per_client; 0 is no cap), as Nomad does:
// a connection over the cap is answered 429 and closed, so that one
// client holding connections open cannot take every file descriptor and
// leave the agent unable to answer anyone else. With tlsConfig (the
// HTTPS port) the 429 goes over TLS, as every answer of that port does:
// the connection's handshake is made first, within
// refusalHandshakeTimeout.
func LimitConnsPerClient(ln net.Listener, max int, tlsConfig *tls.Config, logger hclog.Logger) net.Listener {
	if max <= 0 {
		return ln
	}
	return &connLimitListener{
		Listener: ln, max: max, tls: tlsConfig, logger: logger,
		open:     map[string]int{},
		refusing: make(chan struct{}, maxRefusalsInFlight),
	}
}

type connLimitListener struct {
	net.Listener
	max int
	// tls is the HTTPS port's TLS configuration; nil on a plain HTTP port.
	tls    *tls.Config
	logger hclog.Logger
	// refusing holds a token per refused connection being answered.
	refusing chan struct{}

	mu   sync.Mutex
	open map[string]int // open connections per client IP
}

// Accept returns the next connection within its client's cap; those over
// it are refused without the HTTP server seeing them.
func (l *connLimitListener) Accept() (net.Conn, error) {
	for {
		conn, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := remoteIP(conn)
		if l.acquire(ip) {
			return &limitedConn{Conn: conn, release: func() { l.release(ip) }}, nil
		}
		metrics.IncrCounter([]string{"agent", "http", "exceeded"}, 1)
		l.logger.Debug("too many connections from one client; refused", "client", ip, "limit", l.max)
		select {
		case l.refusing <- struct{}{}:
			go func() {
				defer func() { <-l.refusing }()
				l.refuse(conn)
			}()
		default:
			conn.Close()
		}
	}
}

// refuse answers conn 429, over TLS on the HTTPS port.
func (l *connLimitListener) refuse(conn net.Conn) {
	if l.tls != nil {
		tc := tls.Server(conn, l.tls)
		ctx, cancel := context.WithTimeout(context.Background(), refusalHandshakeTimeout)
		err := tc.HandshakeContext(ctx)
		cancel()
		if err != nil {
			answerPlainHTTP(err)
			conn.Close()
			return
		}
		conn = tc
	}
	refuseConn(conn, l.max)
}

func (l *connLimitListener) acquire(ip string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[ip] >= l.max {
		return false
	}
	l.open[ip]++
	return true
}

func (l *connLimitListener) release(ip string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[ip]--; l.open[ip] <= 0 {
		delete(l.open, ip)
	}
}

// remoteIP is the client's IP address, the key of its cap.
func remoteIP(conn net.Conn) string {
	addr := conn.RemoteAddr()
	if tcp, ok := addr.(*net.TCPAddr); ok {
		return tcp.IP.String()
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	return host
}

// refuseConn answers 429 Too Many Requests, naming the limit, and closes.
// It ends its side first and reads, for a moment, what the client sends:
// closing a socket with unread data resets the connection, and the reset
// can overtake the answer.
func refuseConn(conn net.Conn, max int) {
	defer conn.Close()
	body := fmt.Sprintf("too many connections from your address: the limit is %d at once (limits.http_max_conns_per_client)\n", max)
	_ = conn.SetDeadline(time.Now().Add(refusalWriteTimeout))
	if _, err := fmt.Fprintf(conn, "HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body); err != nil {
		return
	}
	if cw, ok := conn.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	_ = conn.SetReadDeadline(time.Now().Add(refusalLinger))
	_, _ = io.CopyN(io.Discard, conn, refusalDrainBytes)
}

// limitedConn gives its client's place back when it closes.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
