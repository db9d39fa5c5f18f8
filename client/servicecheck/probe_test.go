package servicecheck

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
)

func TestHTTPProbe(t *testing.T) {
	var code atomic.Int64
	code.Store(http.StatusServiceUnavailable)
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got.Store(r.Method + " " + r.URL.RequestURI() + " " + r.Header.Get("X-Check") + " " + r.Host + " " + string(body))
		w.WriteHeader(int(code.Load()))
		io.WriteString(w, strings.Repeat("x", 2*maxOutput))
	}))
	defer srv.Close()
	p := HTTPProbe{URL: srv.URL + "/health?deep=1", Method: "POST", Body: "ping",
		Header: map[string][]string{"X-Check": {"yes"}, "Host": {"svc.example"}}}
	ctx := context.Background()

	r := p.Probe(ctx)
	must.Eq(t, Critical, r.Health)
	must.Eq(t, 503, r.StatusCode)
	must.Eq(t, maxOutput, len(r.Output), must.Sprint("output is cut"))
	must.Eq(t, "POST /health?deep=1 yes svc.example ping", got.Load().(string))

	code.Store(http.StatusTooManyRequests)
	must.Eq(t, Warning, p.Probe(ctx).Health)
	code.Store(http.StatusNoContent)
	must.Eq(t, Passing, p.Probe(ctx).Health)
	code.Store(http.StatusFound)
	must.Eq(t, Critical, p.Probe(ctx).Health, must.Sprint("a redirect is not followed"))
}

func TestHTTPProbe_https(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	p := HTTPProbe{URL: srv.URL + "/"}
	r := p.Probe(context.Background())
	must.Eq(t, Critical, r.Health, must.Sprint("a certificate the client does not trust"))
	must.StrContains(t, r.Output, "certificate")
	p.TLSSkipVerify = true
	must.Eq(t, Passing, p.Probe(context.Background()).Health)
}

func TestTCPProbe(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must.NoError(t, err)
	addr := l.Addr().String()
	r := TCPProbe{Addr: addr}.Probe(context.Background())
	must.Eq(t, Result{Health: Passing, Output: "nomad: tcp ok"}, r)
	must.NoError(t, l.Close())
	r = TCPProbe{Addr: addr}.Probe(context.Background())
	must.Eq(t, Critical, r.Health)
	must.StrContains(t, r.Output, "refused")
}

func TestScriptProbe(t *testing.T) {
	var ran []string
	exec := func(code int, err error) ExecFunc {
		return func(ctx context.Context, cmd []string, timeout time.Duration) (*drivers.ExecResult, error) {
			ran = cmd
			if err != nil {
				return nil, err
			}
			return &drivers.ExecResult{ExitCode: code, Output: []byte("said so")}, nil
		}
	}
	cmd := []string{"/bin/check", "-v"}
	for code, want := range map[int]Health{0: Passing, 1: Warning, 2: Critical, 127: Critical} {
		r := ScriptProbe{Command: cmd, Timeout: time.Second, Exec: exec(code, nil)}.Probe(context.Background())
		must.Eq(t, Result{Health: want, Output: "said so"}, r)
	}
	must.Eq(t, cmd, ran)
	r := ScriptProbe{Command: cmd, Timeout: time.Second, Exec: exec(0, context.DeadlineExceeded)}.Probe(context.Background())
	must.Eq(t, Result{Health: Critical, Output: `nomad: script "/bin/check": timed out after 1s`}, r)
	r = ScriptProbe{Command: cmd, Exec: exec(0, errors.New("no such file"))}.Probe(context.Background())
	must.Eq(t, Critical, r.Health)
	must.StrContains(t, r.Output, "no such file")
	r = ScriptProbe{Command: cmd}.Probe(context.Background())
	must.Eq(t, Critical, r.Health)
	must.StrContains(t, r.Output, "cannot run a command")
}
