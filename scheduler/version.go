package scheduler

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// version is a parsed version number: numeric segments, and prerelease
// identifiers when it is a prerelease. Build metadata is dropped: it does
// not take part in comparisons.
type version struct {
	segments []int64
	pre      []string
}

// parseVersion parses "1.2.3", "v1.2", "1.2.3-beta.1+build". Strict
// (semver) versions have at most three segments.
func parseVersion(s string, strict bool) (version, error) {
	raw := strings.TrimSpace(s)
	s = strings.TrimPrefix(raw, "v")
	s, _, _ = strings.Cut(s, "+")
	core, pre, hasPre := strings.Cut(s, "-")
	if core == "" {
		return version{}, fmt.Errorf("version %q: no number", raw)
	}
	var v version
	for part := range strings.SplitSeq(core, ".") {
		n, err := strconv.ParseInt(part, 10, 64)
		if err != nil || n < 0 || strings.HasPrefix(part, "+") {
			return version{}, fmt.Errorf("version %q: segment %q is not a number", raw, part)
		}
		v.segments = append(v.segments, n)
	}
	if strict && len(v.segments) > 3 {
		return version{}, fmt.Errorf("version %q: a semantic version has at most three segments", raw)
	}
	if hasPre {
		for id := range strings.SplitSeq(pre, ".") {
			if !validPrereleaseID(id) {
				return version{}, fmt.Errorf("version %q: invalid prerelease %q", raw, pre)
			}
			v.pre = append(v.pre, id)
		}
	}
	return v, nil
}

func validPrereleaseID(id string) bool {
	if id == "" {
		return false
	}
	for _, r := range id {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-') {
			return false
		}
	}
	return true
}

func (v version) segment(i int) int64 {
	if i < len(v.segments) {
		return v.segments[i]
	}
	return 0
}

// compare orders versions as semantic versioning does: by segments (a
// missing segment is 0), then a prerelease before its release.
func (v version) compare(o version) int {
	for i := range max(len(v.segments), len(o.segments)) {
		if c := cmpInt(v.segment(i), o.segment(i)); c != 0 {
			return c
		}
	}
	switch {
	case len(v.pre) == 0 && len(o.pre) == 0:
		return 0
	case len(v.pre) == 0:
		return 1
	case len(o.pre) == 0:
		return -1
	}
	for i := range min(len(v.pre), len(o.pre)) {
		if c := comparePrereleaseID(v.pre[i], o.pre[i]); c != 0 {
			return c
		}
	}
	return cmpInt(int64(len(v.pre)), int64(len(o.pre)))
}

// sameRelease reports whether two versions have equal segments.
func (v version) sameRelease(o version) bool {
	for i := range max(len(v.segments), len(o.segments)) {
		if v.segment(i) != o.segment(i) {
			return false
		}
	}
	return true
}

// comparePrereleaseID orders numeric identifiers numerically and before
// alphanumeric ones, which are ordered lexically.
func comparePrereleaseID(a, b string) int {
	an, aerr := strconv.ParseInt(a, 10, 64)
	bn, berr := strconv.ParseInt(b, 10, 64)
	switch {
	case aerr == nil && berr == nil:
		return cmpInt(an, bn)
	case aerr == nil:
		return -1
	case berr == nil:
		return 1
	}
	return strings.Compare(a, b)
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// versionTerm is one comparison of a version constraint, such as ">= 1.2".
type versionTerm struct {
	op     string
	v      version
	strict bool
}

// versionConstraint is a comma-separated list of terms that must all hold.
type versionConstraint []versionTerm

var versionOps = []string{">=", "<=", "!=", "~>", "=", ">", "<"}

// parseVersionConstraint parses constraints such as ">= 1.2, < 2.0" and
// "~> 1.2.3". A term without an operator means "=". Semver (strict)
// constraints have no pessimistic operator (~>).
func parseVersionConstraint(s string, strict bool) (versionConstraint, error) {
	var vc versionConstraint
	for term := range strings.SplitSeq(s, ",") {
		term = strings.TrimSpace(term)
		op := "="
		for _, candidate := range versionOps {
			if rest, ok := strings.CutPrefix(term, candidate); ok {
				op, term = candidate, strings.TrimSpace(rest)
				break
			}
		}
		if strict && op == "~>" {
			return nil, errors.New("semver constraints have no pessimistic operator (~>)")
		}
		v, err := parseVersion(term, strict)
		if err != nil {
			return nil, fmt.Errorf("version constraint %q: %w", s, err)
		}
		vc = append(vc, versionTerm{op: op, v: v, strict: strict})
	}
	return vc, nil
}

// allows reports whether v satisfies every term. For "version" (not
// strict) constraints a prerelease satisfies only terms that name a
// prerelease of the same release, so that ">= 1.0" is not met by
// "2.0.0-beta"; semver constraints simply order prereleases before their
// release.
func (vc versionConstraint) allows(v version) bool {
	for _, t := range vc {
		if !t.allows(v) {
			return false
		}
	}
	return true
}

func (t versionTerm) allows(v version) bool {
	if t.op == "!=" {
		return v.compare(t.v) != 0
	}
	if len(v.pre) > 0 && !t.strict && (len(t.v.pre) == 0 || !v.sameRelease(t.v)) {
		return false
	}
	c := v.compare(t.v)
	switch t.op {
	case "=":
		return c == 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case "~>":
		return c >= 0 && t.samePrefix(v)
	}
	return false
}

// samePrefix reports whether v agrees with the term on every segment the
// term names but its last one (at least the first one).
func (t versionTerm) samePrefix(v version) bool {
	n := max(len(t.v.segments)-1, 1)
	for i := range n {
		if v.segment(i) != t.v.segment(i) {
			return false
		}
	}
	return true
}
