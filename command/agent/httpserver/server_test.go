package httpserver

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent/config"
)

// testServer serves routes on 127.0.0.1 with the default limits, letting
// every caller through, until the test ends.
func testServer(t *testing.T, routes ...Route) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must.NoError(t, err)
	s := New(ln, Options{
		Logger:    hclog.NewNullLogger(),
		Limits:    config.DefaultLimitsConfig(),
		Authorize: func(r *http.Request, _ Access) (*http.Request, error) { return r, nil },
	})
	s.Handle(routes...)
	s.Serve()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	})
	return s
}

// answered is a handler that answers at once.
func answered(http.ResponseWriter, *http.Request) (any, error) {
	return map[string]bool{"ok": true}, nil
}

// Decoding a job of megabytes costs many times that in memory: only so
// many heavy requests run at once, others wait (or give up with their
// client), and requests that decode no job do not wait.
func TestServer_heavyRequestsRunAFewAtATime(t *testing.T) {
	s := testServer(t,
		NewRoute("PUT /heavy", Access{}, answered, JobBody),
		NewRoute("POST /heavy", Access{}, answered, JobBody),
		NewRoute("GET /light", Access{}, answered))
	slots := cap(s.heavySlots)
	for range slots {
		s.heavySlots <- struct{}{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, "http://"+s.Addr()+"/heavy", strings.NewReader(`{"Job": {}}`))
	must.NoError(t, err)
	_, err = http.DefaultClient.Do(req)
	must.ErrorIs(t, err, context.DeadlineExceeded, must.Sprint("a heavy request must wait while every slot is taken"))

	resp, err := http.Get("http://" + s.Addr() + "/light")
	must.NoError(t, err)
	resp.Body.Close()
	must.Eq(t, http.StatusOK, resp.StatusCode, must.Sprint("a request that decodes no job does not wait"))

	for range slots {
		<-s.heavySlots
	}
	resp, err = http.Post("http://"+s.Addr()+"/heavy", "application/json", strings.NewReader(`{"Job": {}}`))
	must.NoError(t, err)
	resp.Body.Close()
	must.Eq(t, http.StatusOK, resp.StatusCode, must.Sprint("a free slot serves the heavy request"))
}
