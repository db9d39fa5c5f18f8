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
		{"/ui/settings/tokens", "tokens", "", ""},
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

	// Nomad's settings path leads to its only page, the token's.
	for _, path := range []string{"/ui/settings", "/ui/settings/"} {
		resp = get(t, h, path)
		must.Eq(t, http.StatusFound, resp.StatusCode, must.Sprint(path))
		must.Eq(t, "/ui/settings/tokens", resp.Header.Get("Location"), must.Sprint(path))
	}

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/ui/jobs", nil))
	must.Eq(t, http.StatusMethodNotAllowed, rec.Code)
}

// Every page can say that the agent refused it, with a link to the token
// page, and shows its content until the script learns so; every page
// links to the token page from its header.
func TestPages_PermissionDenied(t *testing.T) {
	h, err := New()
	must.NoError(t, err)
	for _, path := range []string{"/ui/jobs", "/ui/jobs/maxrun@default", "/ui/allocations/0a1b", "/ui/clients", "/ui/clients/n1", "/ui/evaluations"} {
		page := body(t, get(t, h, path))
		must.StrContains(t, page, `<section id="denied" class="access-denied" role="alert" aria-labelledby="denied-title" hidden>`, must.Sprint(path))
		must.StrContains(t, page, `Permission denied — <a id="denied-link" href="/ui/settings/tokens">set a token</a>`, must.Sprint(path))
		must.StrContains(t, page, `<div id="content">`, must.Sprint(path))
		must.StrContains(t, page, `<a id="token-link" class="token-link" href="/ui/settings/tokens">`, must.Sprint(path))
	}
}

// The token page is a form the script handles. Until the script runs it
// cannot be sent (its only button is disabled, so Enter does nothing
// either), and were it sent, the secret would go in a POST body to the
// agent, never in a URL. The field is not one a browser fills in or
// shows.
func TestTokensPage(t *testing.T) {
	h, err := New()
	must.NoError(t, err)
	page := body(t, get(t, h, "/ui/settings/tokens"))
	must.StrContains(t, page, `<title>ACL token · Drover</title>`)
	must.StrContains(t, page, `<form id="token-form" class="token-form" method="post" action="/ui/settings/tokens" autocomplete="off">`)
	must.StrContains(t, page, `<button id="token-set" type="submit" disabled>Set token</button>`)
	must.StrContains(t, page, `<label for="token-secret">Secret ID</label>`)
	must.StrContains(t, page, `<input id="token-secret" name="secret" type="password" autocomplete="off"`)
	must.StrContains(t, page, `<a id="token-link" class="token-link" href="/ui/settings/tokens" aria-current="page">`)
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
