package netguard

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/shoenig/test/must"
)

// server is a real HTTP server on a loopback address that answers every
// request with a secret and counts them.
type server struct {
	*httptest.Server
	requests atomic.Int32
}

func startServer(t *testing.T, ip string, handler http.HandlerFunc) *server {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Skipf("cannot listen on %s: %v", ip, err)
	}
	s := &server{}
	if handler == nil {
		handler = func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "the secret") }
	}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		handler(w, r)
	}))
	s.Listener.Close()
	s.Listener = l
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func guardedClient(t *testing.T, p *Policy, proxy func(*http.Request) (*url.URL, error)) *http.Client {
	t.Helper()
	c := &http.Client{Transport: p.Transport(nil, proxy)}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func policy(t *testing.T, deny, allow []string) *Policy {
	t.Helper()
	p, err := NewPolicy(deny, allow)
	must.NoError(t, err)
	return p
}

// get fetches u and returns the body, or the error.
func get(c *http.Client, u string) (string, error) {
	resp, err := c.Get(u)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

func mustRefuse(t *testing.T, err error, addr string) {
	t.Helper()
	var refused *RefusedError
	must.True(t, errors.As(err, &refused), must.Sprintf("want a refusal, got %v", err))
	must.StrContains(t, err.Error(), "connection to "+addr+" refused by the client's policy")
}

func TestTransport_refusesLoopback(t *testing.T) {
	srv := startServer(t, "127.0.0.1", nil)
	c := guardedClient(t, DefaultPolicy(), nil)

	body, err := get(c, srv.URL+"/secret")
	mustRefuse(t, err, "127.0.0.1 (loopback)")
	must.Eq(t, "", body)

	// A name is checked on what it resolves to.
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	_, err = get(c, "http://localhost:"+port+"/secret")
	must.ErrorContains(t, err, "(loopback) refused by the client's policy")
	must.Eq(t, 0, srv.requests.Load(), must.Sprint("nothing reached the server"))

	// The same server is reached under a policy that allows it.
	c = guardedClient(t, policy(t, DefaultDenylist, []string{"127.0.0.1"}), nil)
	body, err = get(c, srv.URL+"/secret")
	must.NoError(t, err)
	must.Eq(t, "the secret", body)
}

func TestTransport_refusesARedirect(t *testing.T) {
	inside := startServer(t, "127.0.0.2", nil)
	outside := startServer(t, "127.0.0.1", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, inside.URL+"/secret", http.StatusFound)
	})

	c := guardedClient(t, policy(t, []string{"loopback"}, []string{"127.0.0.1"}), nil)
	_, err := get(c, outside.URL+"/go")
	mustRefuse(t, err, "127.0.0.2 (loopback)")
	must.Eq(t, 1, outside.requests.Load())
	must.Eq(t, 0, inside.requests.Load())

	c = guardedClient(t, policy(t, []string{"loopback"}, []string{"127.0.0.0/8"}), nil)
	body, err := get(c, outside.URL+"/go")
	must.NoError(t, err)
	must.Eq(t, "the secret", body)
	must.Eq(t, 1, inside.requests.Load())
}

// A proxy the operator chose is reached whatever its address; the targets
// sent through it are checked before they are handed over, and its
// address is not open to requests that do not go through it.
func TestTransport_proxy(t *testing.T) {
	var mu sync.Mutex
	var proxied []string
	proxy := startServer(t, "127.0.0.1", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		proxied = append(proxied, r.RequestURI)
		mu.Unlock()
		io.WriteString(w, "via the proxy")
	})
	proxyURL, err := url.Parse(proxy.URL)
	must.NoError(t, err)
	c := guardedClient(t, policy(t, []string{"loopback"}, []string{"127.0.0.3"}), func(req *http.Request) (*url.URL, error) {
		if req.URL.Host == proxyURL.Host { // as NO_PROXY would
			return nil, nil
		}
		return proxyURL, nil
	})

	_, err = get(c, "http://127.0.0.2:9/secret")
	mustRefuse(t, err, "127.0.0.2 (loopback)")
	_, err = get(c, "http://localhost:9/secret")
	must.ErrorContains(t, err, "(loopback)")
	_, err = get(c, proxy.URL+"/direct")
	mustRefuse(t, err, "127.0.0.1 (loopback)")
	must.Eq(t, 0, proxy.requests.Load(), must.Sprint("nothing refused reached the proxy"))

	body, err := get(c, "http://127.0.0.3:9/allowed")
	must.NoError(t, err)
	must.Eq(t, "via the proxy", body)
	mu.Lock()
	defer mu.Unlock()
	must.Eq(t, []string{"http://127.0.0.3:9/allowed"}, proxied)
}

// Failures at an internal address all read alike, whatever answered.
func TestTransport_internalFailuresTellNothing(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	must.NoError(t, err)
	closedAddr := closed.Addr().String()
	closed.Close()

	talker := rawServer(t, func(c net.Conn) {
		c.Read(make([]byte, 4096)) // the request
		io.WriteString(c, "SSH-2.0-OpenSSH_9.6 secret-banner\r\n")
	})
	hangup := rawServer(t, func(net.Conn) {})

	c := guardedClient(t, policy(t, nil, nil), nil)
	var messages []string
	var causes []string
	for _, addr := range []string{closedAddr, talker, hangup} {
		_, err := get(c, "http://"+addr+"/x")
		must.Error(t, err)
		messages = append(messages, strings.ReplaceAll(err.Error(), addr, "ADDR"))
		var unreachable *UnreachableError
		must.True(t, errors.As(err, &unreachable), must.Sprintf("%s: %v", addr, err))
		causes = append(causes, unreachable.Err.Error())
	}
	must.Eq(t, `Get "http://ADDR/x": no answer from ADDR (the cause, at an internal address, is in the client's log only)`, messages[0])
	must.Eq(t, messages[0], messages[1])
	must.Eq(t, messages[0], messages[2])
	// The operator's log still has the cause.
	must.StrContains(t, causes[0], "connection refused")
	must.StrContains(t, causes[1], "secret-banner")
}

// rawServer accepts TCP connections on 127.0.0.1, hands each to serve
// and closes it.
func rawServer(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must.NoError(t, err)
	var wg sync.WaitGroup
	t.Cleanup(func() {
		l.Close()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			serve(conn)
			conn.Close()
		}
	})
	return l.Addr().String()
}
