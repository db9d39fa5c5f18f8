package netguard

import (
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/shoenig/test/must"
)

// proxiedClient sends every request through the guard proxy x, as git
// does with http.proxy set; it trusts any certificate, the test TLS
// server's included.
func proxiedClient(t *testing.T, x *Proxy) *http.Client {
	t.Helper()
	u, err := url.Parse(x.URL())
	must.NoError(t, err)
	tr := &http.Transport{Proxy: http.ProxyURL(u), TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func startProxy(t *testing.T, p *Policy) *Proxy {
	t.Helper()
	x, err := p.StartProxy()
	must.NoError(t, err)
	t.Cleanup(func() { x.Close() })
	return x
}

// The proxy refuses, under the default policy, both a tunnel (https)
// and a plain request (http) to a loopback server: the server is never
// asked, and the refusal is kept for the caller's error.
func TestProxy_RefusesWhatThePolicyRefuses(t *testing.T) {
	plain := startServer(t, "127.0.0.1", nil)
	tlsSrv := startTLSServer(t)

	x := startProxy(t, DefaultPolicy())
	c := proxiedClient(t, x)
	for _, u := range []string{plain.URL + "/x", tlsSrv.URL + "/x"} {
		resp, err := c.Get(u)
		if err == nil {
			resp.Body.Close()
			must.Eq(t, http.StatusForbidden/100, resp.StatusCode/100, must.Sprint(u))
		}
	}
	must.Eq(t, 0, plain.requests.Load())
	must.Eq(t, 0, tlsSrv.requests.Load())
	must.NotNil(t, x.Refused())
	must.StrContains(t, x.Refused().Error(), "(loopback) refused by the client's policy")
}

// Where the policy allows loopback, both kinds of request go through.
func TestProxy_ForwardsWhatThePolicyAllows(t *testing.T) {
	plain := startServer(t, "127.0.0.1", nil)
	tlsSrv := startTLSServer(t)
	x := startProxy(t, policy(t, DefaultDenylist, []string{"127.0.0.1"}))
	c := proxiedClient(t, x)
	for _, u := range []string{plain.URL + "/x", tlsSrv.URL + "/x"} {
		resp, err := c.Get(u)
		must.NoError(t, err, must.Sprint(u))
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		must.NoError(t, err)
		must.Eq(t, "the secret", string(body), must.Sprint(u))
	}
	must.Nil(t, x.Refused())
}

// startTLSServer is startServer over TLS.
func startTLSServer(t *testing.T) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.requests.Add(1)
		io.WriteString(w, "the secret")
	}))
	t.Cleanup(s.Close)
	return s
}
