package main

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// expectations is the checked-in list of the suite's tests that are
// expected to fail against Drover, each with its reason, and of the tests
// not run at all, each with why.
type expectations struct {
	// fail maps a test ("TestJobs_Register", or a subtest
	// "TestJobs_Info/by_prefix") to the reason it is expected to fail.
	fail map[string]*reason
	// skip maps a test that is not run to the reason it is not.
	skip map[string]*reason
	// reasons are every reason, in the file's order.
	reasons []*reason
}

// reason is one group of the list: why its tests fail (or are not run)
// and the heading of the "Differences from Nomad" page that lists the
// difference.
type reason struct {
	Why string
	// See is a heading of website/content/docs/differences.md.
	See string
	// Skip is true for a group of tests that are not run.
	Skip  bool
	Tests []string
}

// testName is what a line naming a test looks like: a top-level test
// function, then any subtests, as go test names them.
var testName = regexp.MustCompile(`^Test[A-Za-z0-9_]*(/\S+)?$`)

// parseExpectations reads the list. Its form:
//
//	# a comment
//	fail: why these tests fail
//	see: Heading of the differences page
//	TestOne
//	TestTwo/subtest
//
//	skip: why these tests are not run
//	see: Heading
//	TestThree
//
// Every test belongs to the group above it, every group has a reason and
// at least one test, every fail: group a heading (a skip: group leaves out
// a test for what it is, not for a difference, and may have none), and no
// test is listed twice.
func parseExpectations(r io.Reader, name string) (*expectations, error) {
	ex := &expectations{fail: map[string]*reason{}, skip: map[string]*reason{}}
	var cur *reason
	sc := bufio.NewScanner(r)
	line := 0
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, args...))
	}
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		switch {
		case text == "" || strings.HasPrefix(text, "#"):
		case strings.HasPrefix(text, "fail:") || strings.HasPrefix(text, "skip:"):
			if err := ex.complete(cur); err != nil {
				return nil, fail("%v", err)
			}
			why := strings.TrimSpace(text[len("fail:"):])
			if why == "" {
				return nil, fail("a group needs its reason after %q", text[:5])
			}
			cur = &reason{Why: why, Skip: strings.HasPrefix(text, "skip:")}
			ex.reasons = append(ex.reasons, cur)
		case strings.HasPrefix(text, "see:"):
			if cur == nil || cur.See != "" || len(cur.Tests) > 0 {
				return nil, fail("see: belongs right after its group's fail: or skip: line")
			}
			cur.See = strings.TrimSpace(text[len("see:"):])
		case testName.MatchString(text):
			if cur == nil {
				return nil, fail("test %s comes before any fail: or skip: line, so it has no reason", text)
			}
			if cur.See == "" && !cur.Skip {
				return nil, fail("test %s: its group has no see: line", text)
			}
			if cur.Skip && strings.Contains(text, "/") {
				return nil, fail("test %s: only a top-level test can be left out (go test's -skip matches each level apart)", text)
			}
			if r := ex.of(text); r != nil {
				return nil, fail("test %s is listed twice (also under %q)", text, r.Why)
			}
			cur.Tests = append(cur.Tests, text)
			if cur.Skip {
				ex.skip[text] = cur
			} else {
				ex.fail[text] = cur
			}
		default:
			return nil, fail("%q is neither a comment, a fail:, skip: or see: line, nor a test name", text)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if err := ex.complete(cur); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return ex, nil
}

// complete checks that group r, just ended, lists a test.
func (ex *expectations) complete(r *reason) error {
	if r != nil && len(r.Tests) == 0 {
		return fmt.Errorf("group %q lists no test", r.Why)
	}
	return nil
}

// of returns the group test is listed in, or nil.
func (ex *expectations) of(test string) *reason {
	if r := ex.fail[test]; r != nil {
		return r
	}
	return ex.skip[test]
}

// skipPattern is the -skip pattern of go test that leaves out the tests
// listed as not run, or "" when there are none.
func (ex *expectations) skipPattern() string {
	var names []string
	for _, r := range ex.reasons {
		if r.Skip {
			for _, t := range r.Tests {
				names = append(names, regexp.QuoteMeta(t))
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "^(" + strings.Join(names, "|") + ")$"
}
