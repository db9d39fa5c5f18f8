package api

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

// recorded is what the fake agent saw of one request.
type recorded struct {
	Method string
	Path   string // escaped, as sent on the wire
	Query  url.Values
	Header http.Header
	Body   []byte
}

// reply is how the fake agent answers every request.
type reply struct {
	status  int
	body    string
	headers map[string]string
}

// newFakeAgent starts an agent on 127.0.0.1 that records each request and
// answers it with r, and returns a client for it.
func newFakeAgent(t *testing.T, r reply) (*Client, <-chan recorded) {
	t.Helper()
	addr, reqs := startFakeAgent(t, r)
	return newTestClient(t, addr), reqs
}

// startFakeAgent starts the agent newFakeAgent describes and returns its
// address.
func startFakeAgent(t *testing.T, r reply) (string, <-chan recorded) {
	t.Helper()
	reqs := make(chan recorded, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		reqs <- recorded{
			Method: req.Method,
			Path:   req.URL.EscapedPath(),
			Query:  req.URL.Query(),
			Header: req.Header.Clone(),
			Body:   body,
		}
		for k, v := range r.headers {
			w.Header().Set(k, v)
		}
		status := r.status
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, r.body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, reqs
}

// newTestClient returns a client for addr that ignores the environment.
func newTestClient(t *testing.T, addr string) *Client {
	t.Helper()
	c, err := NewClient(&Config{Address: addr})
	must.NoError(t, err)
	return c
}

// nextRequest returns the request the fake agent saw next.
func nextRequest(t *testing.T, reqs <-chan recorded) recorded {
	t.Helper()
	select {
	case r := <-reqs:
		return r
	default:
		t.Fatal("the agent received no request")
		return recorded{}
	}
}

// wantRequest is what a client method must send.
type wantRequest struct {
	method string
	path   string
	// query must equal the request's query exactly; nil means none.
	query url.Values
	// body is JSON every key of which the request body must carry with the
	// same value; empty means the request has no body.
	body string
}

// endpointCase calls one client method against a canned answer and then
// checks the request it sent.
type endpointCase struct {
	name  string
	reply reply
	call  func(t *testing.T, c *Client)
	want  wantRequest
}

func runEndpointCases(t *testing.T, cases []endpointCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, reqs := newFakeAgent(t, tc.reply)
			tc.call(t, c)
			got := nextRequest(t, reqs)
			checkRequest(t, tc.want, got)
		})
	}
}

func checkRequest(t *testing.T, want wantRequest, got recorded) {
	t.Helper()
	must.Eq(t, want.method, got.Method, must.Sprint("method"))
	must.Eq(t, want.path, got.Path, must.Sprint("path"))
	wantQuery := want.query
	if wantQuery == nil {
		wantQuery = url.Values{}
	}
	must.Eq(t, wantQuery, got.Query, must.Sprint("query"))
	if want.body == "" {
		must.SliceEmpty(t, got.Body, must.Sprintf("body %s", got.Body))
		return
	}
	must.Eq(t, "application/json", got.Header.Get("Content-Type"))
	checkJSONSubset(t, want.body, got.Body)
}

// checkJSONSubset fails unless got holds every key of want, recursively,
// with an equal value.
func checkJSONSubset(t *testing.T, want string, got []byte) {
	t.Helper()
	var w, g any
	must.NoError(t, json.Unmarshal([]byte(want), &w), must.Sprint("want JSON"))
	must.NoError(t, json.Unmarshal(got, &g), must.Sprintf("request body %s", got))
	if !jsonSubset(w, g) {
		t.Fatalf("request body\n%s\ndoes not carry\n%s", got, want)
	}
}

// jsonSubset compares objects by want's keys, arrays element by element and
// everything else by value.
func jsonSubset(want, got any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok || !jsonSubset(wv, gv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !jsonSubset(w[i], g[i]) {
				return false
			}
		}
		return true
	default:
		return want == got
	}
}

// livenessBound is how long a test waits for something that should happen
// at once before declaring that it never will; generous for a loaded machine.
const livenessBound = 30 * time.Second

func ptr[T any](v T) *T { return &v }

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	buf, err := json.Marshal(v)
	must.NoError(t, err)
	return string(buf)
}
