package httpserver

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

// handshakeListener is the HTTPS listener: it completes each connection's
// TLS handshake within limits.https_handshake_timeout before the HTTP
// server sees the connection. Go's HTTP server would bound the handshake
// by the shortest of its request timeouts (10 s by default); a client that
// starts a handshake and stalls would hold its connection that long.
//
// Each connection is handshaken on a goroutine of its own, so one slow
// client delays no other; the per-client connection cap beneath it bounds
// how many one address may hold. A handshaken *tls.Conn is what Accept
// returns, so the HTTP server's own handshake call finds it done and the
// request still carries the peer's certificates.
type handshakeListener struct {
	inner   net.Listener
	config  *tls.Config
	timeout time.Duration
	logger  hclog.Logger

	ready  chan net.Conn
	failed chan error
	// closed is closed by Close, and ctx, the handshakes' parent, is
	// cancelled with it so that none outlives the listener.
	closed chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	close  sync.Once
}

// ListenTLS wraps ln so that every connection is a *tls.Conn whose
// handshake completed within timeout (0: only the HTTP server's timeouts
// bound it).
func ListenTLS(ln net.Listener, config *tls.Config, timeout time.Duration, logger hclog.Logger) net.Listener {
	if timeout <= 0 {
		return tls.NewListener(ln, config)
	}
	l := &handshakeListener{
		inner:   ln,
		config:  config,
		timeout: timeout,
		logger:  logger,
		ready:   make(chan net.Conn),
		failed:  make(chan error),
		closed:  make(chan struct{}),
	}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	go l.acceptLoop()
	return l
}

// acceptLoop takes every raw connection and starts its handshake, until
// the inner listener fails for good.
func (l *handshakeListener) acceptLoop() {
	for {
		raw, err := l.inner.Accept()
		if err != nil {
			select {
			case l.failed <- err:
			case <-l.closed:
				return
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue // the HTTP server backs off and calls Accept again
			}
			return
		}
		go l.handshake(raw)
	}
}

func (l *handshakeListener) handshake(raw net.Conn) {
	conn := tls.Server(raw, l.config)
	ctx, cancel := context.WithTimeout(l.ctx, l.timeout)
	err := conn.HandshakeContext(ctx)
	cancel()
	if err != nil {
		l.logger.Debug("TLS handshake failed", "client", raw.RemoteAddr().String(), "limit", l.timeout, "error", err)
		answerPlainHTTP(err)
		raw.Close()
		return
	}
	select {
	case l.ready <- conn:
	case <-l.closed:
		conn.Close()
	}
}

// answerPlainHTTP tells a client that spoke plain HTTP to the HTTPS port
// what it did wrong, as Go's HTTP server does, instead of a bare close.
func answerPlainHTTP(err error) {
	var re tls.RecordHeaderError
	if !errors.As(err, &re) || re.Conn == nil || !looksLikeHTTP(re.RecordHeader) {
		return
	}
	_ = re.Conn.SetWriteDeadline(time.Now().Add(refusalWriteTimeout))
	const body = "This port speaks HTTPS; the request came as plain HTTP.\n"
	_, _ = fmt.Fprintf(re.Conn, "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
}

// looksLikeHTTP reports whether the first five bytes a client sent, read
// as a TLS record header, are the start of an HTTP request.
func looksLikeHTTP(header [5]byte) bool {
	for _, method := range []string{"GET /", "HEAD ", "POST ", "PUT /", "DELET", "PATCH", "OPTIO", "CONNE", "TRACE"} {
		if string(header[:]) == method {
			return true
		}
	}
	return false
}

// Accept returns the next connection whose handshake is done.
func (l *handshakeListener) Accept() (net.Conn, error) {
	select {
	case conn := <-l.ready:
		return conn, nil
	case err := <-l.failed:
		return nil, err
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close stops accepting and closes every connection still handshaking or
// not yet taken.
func (l *handshakeListener) Close() error {
	var err error
	l.close.Do(func() {
		close(l.closed)
		l.cancel()
		err = l.inner.Close()
	})
	return err
}

func (l *handshakeListener) Addr() net.Addr { return l.inner.Addr() }
