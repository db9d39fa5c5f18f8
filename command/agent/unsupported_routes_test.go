package agent

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api/unsupported"
)

// TestUnsupportedRoutes_404SaysNomadsAndWhere: a request to a route of
// Nomad's that Drover lacks gets a 404 that says so and points at the
// differences page; any other unknown path gets the plain 404.
func TestUnsupportedRoutes_404SaysNomadsAndWhere(t *testing.T) {
	a := testAgent(t)
	resp := do(t, a, http.MethodGet, "/v1/deployments", nil)
	must.Eq(t, http.StatusNotFound, resp.code)
	must.Eq(t, "no such endpoint: GET /v1/deployments is a Nomad API route (Deployments) that Drover does not serve yet; see website/content/docs/differences.md\n", string(resp.body))

	resp = do(t, a, http.MethodPut, "/v1/var/team/app/config", nil)
	must.Eq(t, http.StatusNotFound, resp.code)
	must.StrContains(t, string(resp.body), "is a Nomad API route (Variables)")

	resp = do(t, a, http.MethodGet, "/v1/nothing", nil)
	must.Eq(t, http.StatusNotFound, resp.code)
	must.Eq(t, "no such endpoint: GET /v1/nothing\n", string(resp.body))
}

// TestNomadOnlyRoute_EveryRowMatchesItself holds each row of the route
// table to the matcher: its own path, parameters filled in, is found.
func TestNomadOnlyRoute_EveryRowMatchesItself(t *testing.T) {
	param := regexp.MustCompile(`:[A-Za-z_]+`)
	for _, r := range unsupported.Routes() {
		path := param.ReplaceAllString(r.Path, "x1")
		got, ok := nomadOnlyRoute(r.Method, path)
		must.True(t, ok, must.Sprintf("%s %s", r.Method, path))
		must.Eq(t, r.Area, got.Area)
	}
	_, ok := nomadOnlyRoute(http.MethodGet, "/v1/deployment/x1/extra")
	must.False(t, ok)
	_, ok = nomadOnlyRoute(http.MethodPost, "/v1/deployments")
	must.False(t, ok)
}
