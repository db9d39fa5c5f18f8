package httpserver

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api/unsupported"
)

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
