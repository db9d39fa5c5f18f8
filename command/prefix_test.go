package command

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestPrefixMatch(t *testing.T) {
	id := func(s string) string { return s }
	cases := []struct {
		name      string
		arg       string
		found     []string
		match     string
		ambiguous []string
		ok        bool
	}{
		{name: "none", arg: "x", found: nil, ok: false},
		{name: "one by prefix", arg: "max", found: []string{"maxrun"}, match: "maxrun", ok: true},
		{name: "exact among several", arg: "web", found: []string{"web", "web-2"}, match: "web", ok: true},
		{name: "exact listed last", arg: "web", found: []string{"web-1", "web-2", "web"}, match: "web", ok: true},
		{name: "several without exact", arg: "we", found: []string{"web", "web-2"}, ambiguous: []string{"web", "web-2"}, ok: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			match, ambiguous, ok := prefixMatch(tc.arg, tc.found, id)
			must.Eq(t, tc.ok, ok)
			must.Eq(t, tc.match, match)
			must.Eq(t, tc.ambiguous, ambiguous)
		})
	}
}
