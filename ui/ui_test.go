package ui

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/shoenig/test/must"
)

func get(t *testing.T, h http.Handler, path string) *http.Response {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Result()
}

func body(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	must.NoError(t, err)
	return string(b)
}

func TestPages(t *testing.T) {
	h, err := New()
	must.NoError(t, err)
	cases := []struct {
		path, page, id, namespace string
	}{
		{"/ui/jobs", "jobs", "", ""},
		{"/ui/jobs/maxrun@default", "job", "maxrun", "default"},
		{"/ui/jobs/a@b@prod", "job", "a@b", "prod"},
		{"/ui/jobs/maxrun", "job", "maxrun", "default"},
		{"/ui/allocations/0a1b", "allocation", "0a1b", ""},
		{"/ui/clients", "clients", "", ""},
		{"/ui/clients/n1", "client", "n1", ""},
		{"/ui/evaluations", "evaluations", "", ""},
	}
	for _, tc := range cases {
		resp := get(t, h, tc.path)
		page := body(t, resp)
		must.Eq(t, http.StatusOK, resp.StatusCode, must.Sprint(tc.path))
		must.Eq(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
		must.StrContains(t, resp.Header.Get("Content-Security-Policy"), "default-src 'self'")
		must.StrContains(t, page, `data-page="`+tc.page+`" data-id="`+tc.id+`" data-namespace="`+tc.namespace+`"`, must.Sprint(tc.path))
		must.StrContains(t, page, `<script src="/ui/static/app.js" defer></script>`)
	}
}

func TestRedirectsAndNotFound(t *testing.T) {
	h, err := New()
	must.NoError(t, err)
	resp := get(t, h, "/ui/")
	must.Eq(t, http.StatusFound, resp.StatusCode)
	must.Eq(t, "/ui/jobs", resp.Header.Get("Location"))

	resp = get(t, h, "/ui/nothing/here")
	must.Eq(t, http.StatusNotFound, resp.StatusCode)
	must.StrContains(t, body(t, resp), "There is no page at <code>/ui/nothing/here</code>")

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/ui/jobs", nil))
	must.Eq(t, http.StatusMethodNotAllowed, rec.Code)
}

// An ID from the URL is text in the page, never markup.
func TestPages_EscapeIDs(t *testing.T) {
	h, err := New()
	must.NoError(t, err)
	page := body(t, get(t, h, `/ui/jobs/%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E@default`))
	must.StrNotContains(t, page, "<script>alert(1)</script>")
	must.StrContains(t, page, "&lt;script&gt;")
}

func TestStatic(t *testing.T) {
	h, err := New()
	must.NoError(t, err)
	for path, kind := range map[string]string{
		"/ui/static/app.js":      "text/javascript",
		"/ui/static/style.css":   "text/css",
		"/ui/static/favicon.svg": "image/svg+xml",
	} {
		resp := get(t, h, path)
		must.Eq(t, http.StatusOK, resp.StatusCode, must.Sprint(path))
		must.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), kind), must.Sprint(path, resp.Header.Get("Content-Type")))
		must.Positive(t, len(body(t, resp)))
	}
	must.Eq(t, http.StatusNotFound, get(t, h, "/ui/static/missing.js").StatusCode)
}

// The script only ever talks to the agent it came from: it names no other
// host.
func TestStatic_NoOtherOrigin(t *testing.T) {
	h, err := New()
	must.NoError(t, err)
	for _, path := range []string{"/ui/static/app.js", "/ui/static/style.css", "/ui/jobs"} {
		text := body(t, get(t, h, path))
		must.StrNotContains(t, text, "http://", must.Sprint(path))
		must.StrNotContains(t, text, "https://", must.Sprint(path))
		must.StrNotContains(t, text, "//cdn", must.Sprint(path))
	}
}
