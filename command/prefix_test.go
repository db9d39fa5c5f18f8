package command

import (
	"strings"
	"testing"

	"github.com/hashicorp/cli"
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

func TestResolvePrefix(t *testing.T) {
	id := func(s string) string { return s }
	table := func(items []string) string { return strings.Join(items, "\n") }
	cases := []struct {
		name   string
		found  []string
		match  string
		ok     bool
		errOut string
	}{
		{name: "one", found: []string{"web-1"}, match: "web-1", ok: true},
		{name: "none", errOut: `No periodic job(s) with prefix or id "web" found` + "\n"},
		{name: "several", found: []string{"web-1", "web-2"}, errOut: "Prefix matched multiple periodic jobs\n\nweb-1\nweb-2\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ui := cli.NewMockUi()
			match, ok := resolvePrefix(ui, "web", "periodic job", tc.found, id, table)
			must.Eq(t, tc.ok, ok)
			must.Eq(t, tc.match, match)
			must.Eq(t, tc.errOut, ui.ErrorWriter.String())
		})
	}
}
