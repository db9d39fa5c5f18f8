package agent

import (
	"net/http"
	"strings"
	"testing"

	"github.com/shoenig/test/must"
)

// The agent serves the web UI at Nomad's UI paths and sends / there; the
// API's paths are untouched.
func TestUIRoutes(t *testing.T) {
	a := testAgent(t)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get("http://" + a.HTTPAddr() + "/")
	must.NoError(t, err)
	resp.Body.Close()
	must.Eq(t, http.StatusTemporaryRedirect, resp.StatusCode)
	must.Eq(t, "/ui/", resp.Header.Get("Location"))

	page := do(t, a, http.MethodGet, "/ui/jobs/maxrun@default", nil)
	must.Eq(t, http.StatusOK, page.code)
	must.True(t, strings.HasPrefix(page.header.Get("Content-Type"), "text/html"))
	must.StrContains(t, page.String(), `data-page="job" data-id="maxrun" data-namespace="default"`)

	must.Eq(t, http.StatusNotFound, do(t, a, http.MethodGet, "/v1/nothing", nil).code)
	must.Eq(t, http.StatusNotFound, do(t, a, http.MethodGet, "/nothing", nil).code)
}
