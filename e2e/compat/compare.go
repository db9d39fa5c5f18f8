package main

import (
	"slices"
	"strings"
)

// verdict is a run's results held to the list.
type verdict struct {
	// passed and skipped count the top-level tests that passed or skipped
	// themselves.
	passed, skipped int
	// expected maps each reason to the top-level tests that failed as
	// it says.
	expected map[*reason][]string
	// unexpectedFail lists the tests that failed without being listed;
	// unexpectedPass the listed tests that passed; notRun the listed
	// tests that did not run or skipped themselves.
	unexpectedFail, unexpectedPass, notRun []string
	// missing lists the suite's tests that never ended: the test binary
	// panicked or timed out first.
	missing []string
	// flaky lists the tests that failed unlisted and passed when run
	// again.
	flaky []string
}

// ok reports whether the run is what the list says.
func (v *verdict) ok() bool {
	return len(v.unexpectedFail) == 0 && len(v.unexpectedPass) == 0 && len(v.notRun) == 0 && len(v.missing) == 0
}

// judge holds res to ex. A failed test is expected when it is listed, or
// when it failed only because of subtests that are; a listed test that
// passes, skips or does not run is as much a finding as an unlisted one
// that fails, so that the list stays true.
func judge(res *results, ex *expectations) *verdict {
	v := &verdict{expected: map[*reason][]string{}}
	children := map[string][]string{}
	for _, t := range res.order {
		if parent, ok := parentOf(t); ok {
			children[parent] = append(children[parent], t)
		}
	}
	// explained reports the reason test's failure is expected for, or
	// nil: its own listing, else that of the failed subtests it has, all
	// of which must be explained.
	var explained func(test string) *reason
	explained = func(test string) *reason {
		if r := ex.fail[test]; r != nil {
			return r
		}
		var first *reason
		for _, c := range children[test] {
			if res.outcome[c] != "fail" {
				continue
			}
			r := explained(c)
			if r == nil {
				return nil
			}
			if first == nil {
				first = r
			}
		}
		return first
	}
	for _, t := range res.order {
		_, isSub := parentOf(t)
		switch res.outcome[t] {
		case "pass":
			if !isSub {
				v.passed++
			}
		case "skip":
			if !isSub {
				v.skipped++
			}
		case "fail":
			r := explained(t)
			if r == nil {
				r = listedAncestor(ex, t)
			}
			switch {
			case r == nil && !hasFailedChild(res, children[t]):
				v.unexpectedFail = append(v.unexpectedFail, t)
			case r == nil:
				// Its failed subtests are reported, each on its own.
			case !isSub:
				v.expected[r] = append(v.expected[r], t)
			}
		}
	}
	for test := range ex.fail {
		switch res.outcome[test] {
		case "pass":
			v.unexpectedPass = append(v.unexpectedPass, test)
		case "fail":
		default:
			v.notRun = append(v.notRun, test)
		}
	}
	slices.Sort(v.unexpectedPass)
	slices.Sort(v.notRun)
	return v
}

// listedAncestor returns the reason a test that test is a subtest of is
// listed for, or nil: a listed test's subtests may fail as it does.
func listedAncestor(ex *expectations, test string) *reason {
	for p, ok := parentOf(test); ok; p, ok = parentOf(p) {
		if r := ex.fail[p]; r != nil {
			return r
		}
	}
	return nil
}

// maxRetried bounds the tests run again: more unlisted failures than this
// are no load's doing.
const maxRetried = 10

// retryable lists the top-level tests of the unlisted failures, to be run
// once more; none when there are more than maxRetried.
func retryable(v *verdict) []string {
	var tops []string
	for _, t := range v.unexpectedFail {
		top, _, _ := strings.Cut(t, "/")
		if !slices.Contains(tops, top) {
			tops = append(tops, top)
		}
	}
	if len(tops) > maxRetried {
		return nil
	}
	return tops
}

// forgive takes off the unlisted failures those whose top-level test
// passed when run again, as flaky.
func (v *verdict) forgive(again *results) {
	kept := v.unexpectedFail[:0]
	for _, t := range v.unexpectedFail {
		top, _, _ := strings.Cut(t, "/")
		if again.outcome[top] == "pass" {
			if !slices.Contains(v.flaky, top) {
				v.flaky = append(v.flaky, top)
			}
			continue
		}
		kept = append(kept, t)
	}
	v.unexpectedFail = kept
}

func parentOf(test string) (string, bool) {
	i := strings.LastIndexByte(test, '/')
	if i < 0 {
		return "", false
	}
	return test[:i], true
}

func hasFailedChild(res *results, children []string) bool {
	return slices.ContainsFunc(children, func(c string) bool { return res.outcome[c] == "fail" })
}
