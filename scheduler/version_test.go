package scheduler

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestParseVersion(t *testing.T) {
	cases := []struct {
		in     string
		strict bool
		ok     bool
	}{
		{"1.2.3", true, true},
		{"v1.2", true, true},
		{"1.2.3-beta.1+build.5", true, true},
		{"1.2.3.4", false, true},
		{"1.2.3.4", true, false},
		{"", false, false},
		{"1..2", false, false},
		{"1.x", false, false},
		{"1.2-", false, false},
		{"1.2-be_ta", false, false},
	}
	for _, tc := range cases {
		_, err := parseVersion(tc.in, tc.strict)
		must.Eq(t, tc.ok, err == nil, must.Sprintf("parse %q (strict %v): %v", tc.in, tc.strict, err))
	}
}

func TestVersionCompare(t *testing.T) {
	ordered := []string{"1.0.0-1", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.2", "1.10.0", "2"}
	for i := range ordered {
		for j := range ordered {
			a, err := parseVersion(ordered[i], false)
			must.NoError(t, err)
			b, err := parseVersion(ordered[j], false)
			must.NoError(t, err)
			must.Eq(t, cmpInt(int64(i), int64(j)), a.compare(b), must.Sprintf("%s vs %s", ordered[i], ordered[j]))
		}
	}
	a, _ := parseVersion("1.2", false)
	b, _ := parseVersion("1.2.0+meta", false)
	must.Eq(t, 0, a.compare(b))
}

func TestVersionConstraint(t *testing.T) {
	cases := []struct {
		constraint, version string
		strict, want        bool
	}{
		{">= 1.2, < 2.0", "1.5.0", false, true},
		{">= 1.2, < 2.0", "2.0.0", false, false},
		{"= 1.2.3", "1.2.3", false, true},
		{"1.2.3", "v1.2.3", false, true},
		{"!= 1.2.3", "1.2.4", false, true},
		{"> 1.2", "1.2.0", false, false},
		{"<= 1.2", "1.2.0", false, true},
		{"~> 1.2", "1.9.9", false, true},
		{"~> 1.2", "2.0.0", false, false},
		{"~> 1.2.3", "1.2.9", false, true},
		{"~> 1.2.3", "1.3.0", false, false},
		{"~> 1.2.3", "1.2.2", false, false},
		{"~> 1", "1.9", false, true},
		// version: a prerelease meets only terms naming its release's prerelease.
		{">= 1.0", "2.0.0-beta", false, false},
		{">= 2.0.0-alpha", "2.0.0-beta", false, true},
		{">= 1.0.0-alpha", "2.0.0-beta", false, false},
		// semver: prereleases are ordered before their release.
		{">= 1.0", "2.0.0-beta", true, true},
		{"< 2.0.0", "2.0.0-beta", true, true},
		{">= 2.0.0", "2.0.0-beta", true, false},
		{"~> 1.2", "1.3.0", true, false}, // no pessimistic operator in semver
		{"nonsense", "1.0.0", false, false},
		{">= 1.0", "not-a-version", false, false},
	}
	for _, tc := range cases {
		test := versionTest(target{kind: targetLiteral}, tc.strict)
		must.Eq(t, tc.want, test(tc.version, true, tc.constraint, true),
			must.Sprintf("%q %s %q", tc.version, map[bool]string{false: "version", true: "semver"}[tc.strict], tc.constraint))
	}
}
