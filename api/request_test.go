package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func TestParseQueryMeta(t *testing.T) {
	cases := []struct {
		name    string
		headers map[string]string
		want    QueryMeta
		err     string
	}{
		{
			name: "all headers",
			headers: map[string]string{
				"X-Nomad-Index": "1234", "X-Nomad-KnownLeader": "true", "X-Nomad-LastContact": "250",
			},
			want: QueryMeta{LastIndex: 1234, KnownLeader: true, LastContact: 250 * time.Millisecond},
		},
		{
			name:    "no known leader",
			headers: map[string]string{"X-Nomad-Index": "7", "X-Nomad-KnownLeader": "false", "X-Nomad-LastContact": "0"},
			want:    QueryMeta{LastIndex: 7},
		},
		{
			name: "headers left out read as zero",
			want: QueryMeta{},
		},
		{
			name:    "malformed index",
			headers: map[string]string{"X-Nomad-Index": "twelve"},
			err:     `X-Nomad-Index "twelve"`,
		},
		{
			name:    "negative last contact",
			headers: map[string]string{"X-Nomad-LastContact": "-5"},
			err:     `X-Nomad-LastContact "-5"`,
		},
		{
			name:    "malformed known leader",
			headers: map[string]string{"X-Nomad-KnownLeader": "maybe"},
			err:     `X-Nomad-KnownLeader "maybe"`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tc.headers {
				h.Set(k, v)
			}
			var got QueryMeta
			err := parseQueryMeta(h, &got)
			if tc.err != "" {
				must.ErrorContains(t, err, tc.err)
				return
			}
			must.NoError(t, err)
			must.Eq(t, tc.want, got)
		})
	}
}

func TestQuery_MetaFromHeaders(t *testing.T) {
	c, _ := newFakeAgent(t, reply{
		body: `[]`,
		headers: map[string]string{
			"X-Nomad-Index": "99", "X-Nomad-KnownLeader": "true", "X-Nomad-LastContact": "12",
		},
	})
	_, qm, err := c.Jobs().List(nil)
	must.NoError(t, err)
	must.Eq(t, uint64(99), qm.LastIndex)
	must.True(t, qm.KnownLeader)
	must.Eq(t, 12*time.Millisecond, qm.LastContact)
	must.Positive(t, qm.RequestTime)
}

func TestQuery_MalformedHeaderFails(t *testing.T) {
	c, _ := newFakeAgent(t, reply{body: `[]`, headers: map[string]string{"X-Nomad-Index": "x"}})
	_, _, err := c.Jobs().List(nil)
	must.ErrorContains(t, err, "GET /v1/jobs")
	must.ErrorContains(t, err, "X-Nomad-Index")
}

func TestWrite_MetaFromHeaders(t *testing.T) {
	c, _ := newFakeAgent(t, reply{
		body:    `{"EvalID":"e1","EvalCreateIndex":10,"JobModifyIndex":10}`,
		headers: map[string]string{"X-Nomad-Index": "10"},
	})
	_, wm, err := c.Jobs().Register(&Job{ID: ptr("example")}, nil)
	must.NoError(t, err)
	must.Eq(t, uint64(10), wm.LastIndex)
	must.Positive(t, wm.RequestTime)
}

func TestQueryOptions_Parameters(t *testing.T) {
	cases := []struct {
		name      string
		cfg       Config
		q         *QueryOptions
		wantQuery url.Values
		wantToken string
	}{
		{
			name:      "defaults send nothing",
			q:         nil,
			wantQuery: url.Values{},
		},
		{
			name:      "configuration scopes the request",
			cfg:       Config{Region: "eu", Namespace: "batch", Token: "cfg-secret"},
			q:         nil,
			wantQuery: url.Values{"region": {"eu"}, "namespace": {"batch"}},
			wantToken: "cfg-secret",
		},
		{
			name:      "options override the configuration",
			cfg:       Config{Region: "eu", Namespace: "batch", Token: "cfg-secret"},
			q:         &QueryOptions{Region: "us", Namespace: "web", AuthToken: "req-secret"},
			wantQuery: url.Values{"region": {"us"}, "namespace": {"web"}},
			wantToken: "req-secret",
		},
		{
			name: "every query option",
			q: &QueryOptions{
				AllowStale: true, WaitIndex: 42, WaitTime: 5 * time.Second,
				Prefix: "ab", Params: map[string]string{"related": "true"},
			},
			wantQuery: url.Values{
				"stale": {"true"}, "index": {"42"}, "wait": {"5000ms"},
				"prefix": {"ab"}, "related": {"true"},
			},
		},
		{
			name:      "configured wait time is the default",
			cfg:       Config{WaitTime: 2 * time.Minute},
			q:         &QueryOptions{WaitIndex: 3},
			wantQuery: url.Values{"index": {"3"}, "wait": {"120000ms"}},
		},
		{
			name:      "a request's wait time beats the configured one",
			cfg:       Config{WaitTime: 2 * time.Minute},
			q:         &QueryOptions{WaitIndex: 3, WaitTime: 300 * time.Millisecond},
			wantQuery: url.Values{"index": {"3"}, "wait": {"300ms"}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			addr, reqs := startFakeAgent(t, reply{body: `[]`})
			tc.cfg.Address = addr
			c, err := NewClient(&tc.cfg)
			must.NoError(t, err)
			_, _, err = c.Jobs().List(tc.q)
			must.NoError(t, err)
			got := nextRequest(t, reqs)
			must.Eq(t, tc.wantQuery, got.Query)
			must.Eq(t, tc.wantToken, got.Header.Get("X-Nomad-Token"))
		})
	}
}

func TestWriteOptions_Parameters(t *testing.T) {
	addr, reqs := startFakeAgent(t, reply{body: `{"EvalID":"e1"}`})
	c, err := NewClient(&Config{Address: addr, Region: "eu", Namespace: "batch", Token: "cfg-secret"})
	must.NoError(t, err)

	_, _, err = c.Jobs().Deregister("example", false, &WriteOptions{Namespace: "web", AuthToken: "req-secret"})
	must.NoError(t, err)
	got := nextRequest(t, reqs)
	must.Eq(t, url.Values{"region": {"eu"}, "namespace": {"web"}, "purge": {"false"}}, got.Query)
	must.Eq(t, "req-secret", got.Header.Get("X-Nomad-Token"))
}

func TestFormatWait(t *testing.T) {
	cases := []struct {
		in   time.Duration
		want string
	}{
		{5 * time.Second, "5000ms"},
		{1500 * time.Microsecond, "1ms"},
		{time.Nanosecond, "1ms"},
		{10 * time.Minute, "600000ms"},
	}
	for _, tc := range cases {
		must.Eq(t, tc.want, formatWait(tc.in), must.Sprint(tc.in))
	}
}

func TestBlockingQuery_ContextCancels(t *testing.T) {
	arrived := make(chan url.Values, 1)
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- r.URL.Query()
		// Block as a server does until the index moves; it never does.
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) })
	c := newTestClient(t, srv.URL)

	ctx, cancel := context.WithCancel(context.Background())
	// A failed assertion must not leave the request, and so srv.Close, hanging.
	defer cancel()
	done := make(chan error, 1)
	go func() {
		q := (&QueryOptions{WaitIndex: 17, WaitTime: 5 * time.Minute}).WithContext(ctx)
		_, _, err := c.Jobs().Info("example", q)
		done <- err
	}()

	query := <-arrived
	must.Eq(t, "17", query.Get("index"))
	must.Eq(t, "300000ms", query.Get("wait"))
	cancel()
	select {
	case err := <-done:
		must.ErrorIs(t, err, context.Canceled)
	case <-time.After(livenessBound):
		t.Fatal("cancelling the context did not end the blocking query")
	}
}

func TestErrors_UnexpectedResponse(t *testing.T) {
	cases := []struct {
		name     string
		status   int
		body     string
		message  string
		notFound bool
	}{
		{"not found", 404, "job not found\n", "Unexpected response code: 404 (job not found)", true},
		{"bad request", 400, "1 error occurred:\n\t* group \"g\": max_run_duration must be positive", `Unexpected response code: 400 (1 error occurred:`, false},
		{"server fault without body", 500, "", "Unexpected response code: 500 (Internal Server Error)", false},
		{"forbidden", 403, "Permission denied", "Unexpected response code: 403 (Permission denied)", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newFakeAgent(t, reply{status: tc.status, body: tc.body})
			_, _, err := c.Jobs().Info("example", nil)
			must.ErrorContains(t, err, tc.message)
			must.Eq(t, tc.notFound, IsNotFound(err))
			must.Eq(t, tc.notFound, IsNotFound(fmt.Errorf("query job: %w", err)))

			var ue UnexpectedResponseError
			must.True(t, errors.As(err, &ue))
			must.True(t, ue.HasStatusCode(tc.status))
			must.False(t, ue.HasStatusCode(tc.status+1))
			must.Eq(t, strings.TrimSpace(tc.body), ue.Body)
			must.StrHasPrefix(t, fmt.Sprint(tc.status), ue.Status)
		})
	}
}

func TestErrors_IsNotFound(t *testing.T) {
	must.True(t, IsNotFound(&UnexpectedResponseError{StatusCode: 404}))
	must.False(t, IsNotFound(errors.New("404")))
	must.False(t, IsNotFound(nil))
}

func TestErrors_BodyIsCapped(t *testing.T) {
	c, _ := newFakeAgent(t, reply{status: 400, body: strings.Repeat("x", maxErrorBody+100)})
	_, _, err := c.Jobs().Info("example", nil)
	var ue UnexpectedResponseError
	must.True(t, errors.As(err, &ue))
	must.Eq(t, maxErrorBody, len(ue.Body))
}

func TestQuery_EmptyBodyFails(t *testing.T) {
	c, _ := newFakeAgent(t, reply{body: ""})
	_, _, err := c.Jobs().Info("example", nil)
	must.ErrorContains(t, err, "empty body")
}

func TestQuery_ConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := srv.URL
	srv.Close()
	c := newTestClient(t, addr)
	_, _, err := c.Jobs().List(nil)
	must.Error(t, err)
	must.ErrorContains(t, err, strings.TrimPrefix(addr, "http://"))
}

func TestCappedReader(t *testing.T) {
	cases := []struct {
		name  string
		body  string
		limit int64
		err   bool
	}{
		{"under the limit", "abc", 4, false},
		{"exactly the limit", "abcd", 4, false},
		{"over the limit", "abcde", 4, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAllCapped(strings.NewReader(tc.body), tc.limit)
			if tc.err {
				must.ErrorIs(t, err, errResponseTooLarge)
				return
			}
			must.NoError(t, err)
			must.Eq(t, tc.body, string(got))
		})
	}
}

func TestDecodeJSON_TooLarge(t *testing.T) {
	var out []string
	// An endless JSON array is refused once it passes the cap.
	endless := io.MultiReader(strings.NewReader("["), &repeatReader{s: `"x",`})
	err := decodeJSONCapped(endless, &out, 1<<20)
	must.ErrorIs(t, err, errResponseTooLarge)
}

// repeatReader yields its string over and over, without end.
type repeatReader struct {
	s   string
	pos int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = r.s[r.pos]
		r.pos = (r.pos + 1) % len(r.s)
	}
	return len(p), nil
}

// testCtxKey keys the value a test puts in a context.
type testCtxKey struct{}

func TestOptions_CopiesLeaveCallerAlone(t *testing.T) {
	q := &QueryOptions{Prefix: "a", Params: map[string]string{"x": "1"}}
	ctx := context.WithValue(context.Background(), testCtxKey{}, "v")

	bound := q.WithContext(ctx)
	must.Eq(t, ctx, bound.Context())
	must.Eq(t, context.Background(), q.Context())

	more := withParam(q, "y", "2")
	must.Eq(t, map[string]string{"x": "1"}, q.Params)
	must.Eq(t, map[string]string{"x": "1", "y": "2"}, more.Params)

	fewer := withoutParam(more, "x")
	must.Eq(t, map[string]string{"y": "2"}, fewer.Params)
	must.Eq(t, map[string]string{"x": "1", "y": "2"}, more.Params)

	var nilQ *QueryOptions
	must.Eq(t, context.Background(), nilQ.Context())
	must.Eq(t, ctx, nilQ.WithContext(ctx).Context())

	w := &WriteOptions{Region: "eu"}
	wb := w.WithContext(ctx)
	must.Eq(t, ctx, wb.Context())
	must.Eq(t, "eu", wb.Region)
	must.Eq(t, context.Background(), w.Context())
}

func TestJSONSubset(t *testing.T) {
	must.True(t, jsonSubset(map[string]any{"A": 1.0}, map[string]any{"A": 1.0, "B": 2.0}))
	must.False(t, jsonSubset(map[string]any{"A": 1.0}, map[string]any{"A": 2.0}))
	must.False(t, jsonSubset(map[string]any{"A": 1.0}, map[string]any{"B": 1.0}))
	must.False(t, jsonSubset(map[string]any{"A": map[string]any{"B": true}}, map[string]any{"A": map[string]any{"B": false}}))
	must.True(t, jsonSubset([]any{map[string]any{"A": 1.0}}, []any{map[string]any{"A": 1.0, "B": nil}}))
	must.False(t, jsonSubset([]any{1.0}, []any{1.0, 2.0}))
	must.False(t, jsonSubset(nil, 0.0))
}
