package httpserver

import (
	"crypto/tls"
	"errors"
	"net"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/tlsutil"
	"github.com/drover-io/drover/internal/tlsutil/tlstest"
)

// pipeListener hands out the server ends of in-memory connections, so
// that handshakes run inside a synctest bubble.
type pipeListener struct {
	conns  chan net.Conn
	closed chan struct{}
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

// dial connects a new client to the listener.
func (l *pipeListener) dial() net.Conn {
	srv, cli := net.Pipe()
	l.conns <- srv
	return cli
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error   { close(l.closed); return nil }
func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

// closedAt reads from conn on a goroutine and reports when the read ends.
func closedAt(conn net.Conn) <-chan time.Time {
	at := make(chan time.Time, 1)
	go func() {
		_, _ = conn.Read(make([]byte, 1))
		at <- time.Now()
	}()
	return at
}

// TestHandshakeListener_StalledClientIsClosedAtTheLimit: a client that
// connects and sends nothing is closed exactly when the handshake limit
// passes, and meanwhile another client's handshake completes and reaches
// Accept.
func TestHandshakeListener_StalledClientIsClosedAtTheLimit(t *testing.T) {
	ca := tlstest.NewCA(t)
	server := tlstest.Material(t, ca.Files(t, "server", tlsutil.RoleServer, "global"))
	const limit = 5 * time.Second
	// The bubble's clock starts in 2000, before the certificate is valid:
	// the client checks it at the real time.
	now := time.Now()
	dial := &tls.Config{RootCAs: server.CAs, ServerName: tlsutil.Name(tlsutil.RoleServer, "global"), Time: func() time.Time { return now }}
	synctest.Test(t, func(t *testing.T) {
		pipes := newPipeListener()
		ln := ListenTLS(pipes, server.ServerConfig(false), limit, hclog.NewNullLogger())
		defer ln.Close()
		start := time.Now()

		stalled := pipes.dial()
		defer stalled.Close()
		stalledEnd := closedAt(stalled)

		good := tls.Client(pipes.dial(), dial)
		defer good.Close()
		handshook := make(chan error, 1)
		go func() { handshook <- good.Handshake() }()
		accepted, err := ln.Accept()
		must.NoError(t, err)
		defer accepted.Close()
		must.NoError(t, <-handshook)
		tc, ok := accepted.(*tls.Conn)
		must.True(t, ok, must.Sprintf("Accept returned a %T, the HTTP server needs a *tls.Conn", accepted))
		must.True(t, tc.ConnectionState().HandshakeComplete)

		time.Sleep(limit - time.Nanosecond)
		synctest.Wait()
		select {
		case at := <-stalledEnd:
			t.Fatalf("the stalled client was closed after %s, before the limit", at.Sub(start))
		default:
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		select {
		case at := <-stalledEnd:
			must.Eq(t, limit, at.Sub(start))
		default:
			t.Fatal("the stalled client is still open at the limit")
		}
	})
}

// TestHandshakeListener_CloseEndsHandshakes: closing the listener closes
// a connection still handshaking at once, and Accept reports the close.
func TestHandshakeListener_CloseEndsHandshakes(t *testing.T) {
	ca := tlstest.NewCA(t)
	server := tlstest.Material(t, ca.Files(t, "server", tlsutil.RoleServer, "global"))
	synctest.Test(t, func(t *testing.T) {
		pipes := newPipeListener()
		ln := ListenTLS(pipes, server.ServerConfig(false), time.Minute, hclog.NewNullLogger())
		stalled := pipes.dial()
		defer stalled.Close()
		end := closedAt(stalled)
		synctest.Wait()

		start := time.Now()
		must.NoError(t, ln.Close())
		must.Eq(t, start, <-end)
		_, err := ln.Accept()
		must.True(t, errors.Is(err, net.ErrClosed), must.Sprint(err))
	})
}
