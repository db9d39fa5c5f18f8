package httpserver

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func TestParseQueryOptions(t *testing.T) {
	cases := []struct {
		query string
		want  QueryOptions
		err   string
	}{
		{query: "", want: QueryOptions{Namespace: "default"}},
		{query: "namespace=*&prefix=ab&region=global", want: QueryOptions{Namespace: "*", Prefix: "ab", Region: "global"}},
		{query: "index=7", want: QueryOptions{Namespace: "default", MinIndex: 7, Wait: defaultBlockingWait}},
		{query: "index=7&wait=5s", want: QueryOptions{Namespace: "default", MinIndex: 7, Wait: 5 * time.Second}},
		{query: "index=7&wait=5000ms", want: QueryOptions{Namespace: "default", MinIndex: 7, Wait: 5 * time.Second}},
		{query: "index=7&wait=1h", want: QueryOptions{Namespace: "default", MinIndex: 7, Wait: maxBlockingWait}},
		{query: "wait=5s", want: QueryOptions{Namespace: "default"}},
		{query: "stale", want: QueryOptions{Namespace: "default", Stale: true}},
		{query: "stale=true", want: QueryOptions{Namespace: "default", Stale: true}},
		{query: "stale=false", want: QueryOptions{Namespace: "default"}},
		{query: "index=-1", err: `invalid index "-1"`},
		{query: "index=1&wait=5", err: `invalid wait "5"`},
		{query: "index=1&wait=-5s", err: `invalid wait "-5s"`},
		{query: "prefix=a%00b", err: "must contain only printable characters, not U+0000 at byte 2"},
		{query: "namespace=a%0Ab", err: "invalid namespace"},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/v1/jobs?"+tc.query, nil)
			got, err := ParseQueryOptions(r)
			if tc.err != "" {
				must.ErrorContains(t, err, tc.err)
				code, _ := ErrorStatus(err)
				must.Eq(t, http.StatusBadRequest, code)
				return
			}
			must.NoError(t, err)
			must.Eq(t, tc.want, got)
		})
	}
}

func TestWriteNamespace(t *testing.T) {
	r := httptest.NewRequest(http.MethodPut, "/v1/jobs", nil)
	ns, err := WriteNamespace(r)
	must.NoError(t, err)
	must.Eq(t, "default", ns)

	r = httptest.NewRequest(http.MethodPut, "/v1/jobs?namespace=*", nil)
	_, err = WriteNamespace(r)
	must.ErrorContains(t, err, "a write needs one namespace")
}

func TestParseBoolParam(t *testing.T) {
	cases := map[string]struct {
		want bool
		err  bool
	}{
		"":            {want: false},
		"purge":       {want: true},
		"purge=":      {want: true},
		"purge=true":  {want: true},
		"purge=1":     {want: true},
		"purge=false": {want: false},
		"purge=nope":  {err: true},
	}
	for query, tc := range cases {
		r := httptest.NewRequest(http.MethodDelete, "/v1/job/x?"+query, nil)
		got, err := ParseBoolParam(r, "purge")
		if tc.err {
			must.Error(t, err, must.Sprint(query))
			continue
		}
		must.NoError(t, err, must.Sprint(query))
		must.Eq(t, tc.want, got, must.Sprint(query))
	}
}

func TestCheckID(t *testing.T) {
	must.NoError(t, CheckID("job ID", "web-1"))
	must.NoError(t, CheckID("job ID", "parent/periodic-1700000000"))
	must.ErrorContains(t, CheckID("job ID", ""), "missing job ID")
	must.ErrorContains(t, CheckID("job ID", "a\x00b"), "must contain only printable characters")
	must.ErrorContains(t, CheckID("job ID", string(make([]byte, MaxIDLength+1))), "longer than")
}
