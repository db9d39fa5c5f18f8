package httpserver

import (
	"fmt"
	"strings"

	"github.com/drover-io/drover/api/unsupported"
)

// notFoundReason is the 404 answer to a request no route serves. For a
// route of Nomad's that Drover lacks, api/unsupported's route table (the
// one the differences page lists) makes it say so and where to read what
// Drover has, rather than only that the endpoint does not exist.
func notFoundReason(method, path string) string {
	if r, ok := nomadOnlyRoute(method, path); ok {
		return fmt.Sprintf("no such endpoint: %s %s is a Nomad API route (%s) that Drover does not serve yet; see %s",
			method, path, r.Area, unsupported.DocsPage)
	}
	return fmt.Sprintf("no such endpoint: %s %s", method, path)
}

// nomadOnlyRoute finds the row of the route table that method and path
// match.
func nomadOnlyRoute(method, path string) (unsupported.Route, bool) {
	for _, r := range unsupported.Routes() {
		if r.Method == method && routeMatches(r.Path, path) {
			return r, true
		}
	}
	return unsupported.Route{}, false
}

// routeMatches reports whether path is an instance of pattern, whose
// ":name" segments match any segment; ":path" ending the pattern takes
// the rest of the path too (a variable's path has slashes).
func routeMatches(pattern, path string) bool {
	want := strings.Split(strings.Trim(pattern, "/"), "/")
	got := strings.Split(strings.Trim(path, "/"), "/")
	for i, seg := range want {
		if i >= len(got) {
			return false
		}
		if !strings.HasPrefix(seg, ":") {
			if seg != got[i] {
				return false
			}
			continue
		}
		if got[i] == "" {
			return false
		}
		if seg == ":path" && i == len(want)-1 {
			return true
		}
	}
	return len(got) == len(want)
}
