package httpserver

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// FuzzQueryOptions parses arbitrary query strings and path IDs the way
// every read does. None may panic; what is accepted is within bounds: a
// wait of at most maxBlockingWait, and IDs, prefixes and namespaces that
// are printable and of bounded length, by the rule register holds names
// to. Refusals are 400s. Plain `go test` runs the seeds below and those in
// testdata/fuzz/FuzzQueryOptions.
func FuzzQueryOptions(f *testing.F) {
	for _, s := range []struct{ query, id string }{
		{"", "job"},
		{"index=5&wait=5s&stale&namespace=ns&region=global&prefix=ab", "x"},
		{"index=18446744073709551615&wait=9999h", "x"},
		{"index=-1&wait=-5s", "x"},
		{"wait=5000ms&stale=false&pretty", "%00"},
		{"namespace=*&prefix=%1B&purge=maybe&all=1", "e\x1b"},
		{"namespace=%E2%80%AE&index=1e3", "\u202e"},
		{"a=%zz&&&=&index", ""},
	} {
		f.Add(s.query, s.id)
	}

	f.Fuzz(func(t *testing.T, rawQuery, id string) {
		r := httptest.NewRequest(http.MethodGet, "/v1/job/x", nil)
		r.URL.RawQuery = rawQuery
		r.SetPathValue("id", id)

		got, opts, err := IDQuery(r, "job ID")
		if err != nil {
			code, _ := ErrorStatus(err)
			must.Eq(t, http.StatusBadRequest, code, must.Sprint(err))
		} else {
			must.Eq(t, id, got)
			must.Eq(t, "", structs.NonPrintable(got))
			must.LessEq(t, MaxIDLength, len(got))
			must.Eq(t, "", structs.NonPrintable(opts.Namespace))
			must.Eq(t, "", structs.NonPrintable(opts.Prefix))
			must.LessEq(t, maxBlockingWait, opts.Wait)
			must.True(t, opts.Wait >= 0)
			must.True(t, opts.MinIndex > 0 || opts.Wait == 0, must.Sprint("a wait without an index"))
		}
		for _, name := range []string{"purge", "all", "stale"} {
			if _, err := ParseBoolParam(r, name); err != nil {
				code, _ := ErrorStatus(err)
				must.Eq(t, http.StatusBadRequest, code)
			}
		}
		if ns, err := WriteNamespace(r); err == nil {
			must.NotEq(t, "*", ns)
		}
		_ = FlagSet(r.URL.Query(), "pretty")
		_, _ = url.ParseQuery(rawQuery)
	})
}
