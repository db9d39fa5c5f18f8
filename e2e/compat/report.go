package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// expectedTests lists the top-level tests that failed as the list says.
func (v *verdict) expectedTests() []string {
	var out []string
	for _, tests := range v.expected {
		out = append(out, tests...)
	}
	slices.Sort(out)
	return out
}

// within is the list narrowed to the tests res ran, for a run of some
// tests only (-run).
func (ex *expectations) within(res *results) *expectations {
	out := &expectations{fail: map[string]*reason{}, skip: ex.skip, reasons: ex.reasons}
	for t, r := range ex.fail {
		if _, ran := res.outcome[t]; ran {
			out.fail[t] = r
		}
	}
	return out
}

// report prints the run's counts, the expected failures by reason and
// every finding, with the failed tests' own report of what failed.
func report(w io.Writer, res *results, ex *expectations, v *verdict, left []leftover, took time.Duration, resultsFile string) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Expected to fail, by reason:")
	for _, r := range ex.reasons {
		if r.Skip {
			fmt.Fprintf(w, "  %3d not run: %s\n", len(r.Tests), r.Why)
			continue
		}
		if n := len(v.expected[r]); n > 0 {
			fmt.Fprintf(w, "  %3d %s (%s)\n", n, r.Why, r.See)
		}
	}
	for _, t := range v.unexpectedFail {
		fmt.Fprintf(w, "\nUNEXPECTED FAILURE: %s (not in the list)\n", t)
		top, _, _ := strings.Cut(t, "/")
		for _, l := range failureLines(res.output[top], 40) {
			fmt.Fprintln(w, "   ", l)
		}
	}
	for _, t := range v.flaky {
		fmt.Fprintf(w, "\nFLAKY: %s failed unlisted and passed when run again\n", t)
		for _, l := range failureLines(res.output[t], 20) {
			fmt.Fprintln(w, "   ", l)
		}
	}
	for _, t := range v.unexpectedPass {
		fmt.Fprintf(w, "\nUNEXPECTED PASS: %s, listed as failing because %s: take it off the list\n", t, ex.fail[t].Why)
	}
	for _, t := range v.notRun {
		fmt.Fprintf(w, "\nLISTED BUT NOT FAILED: %s %s (listed because %s)\n", t, describe(res.outcome[t]), ex.fail[t].Why)
	}
	if len(v.missing) > 0 {
		fmt.Fprintf(w, "\nNEVER ENDED (the test binary panicked or timed out first): %s\n", strings.Join(v.missing, ", "))
		for _, pkg := range slices.Sorted(maps.Keys(res.packageOutput)) {
			lines := res.packageOutput[pkg]
			for _, l := range lines[max(0, len(lines)-30):] {
				fmt.Fprintln(w, "   ", l)
			}
		}
	}
	if len(left) > 0 {
		fmt.Fprintf(w, "\nStopped %d processes the suite left behind:\n", len(left))
		for _, l := range left {
			fmt.Fprintf(w, "  %d %s\n", l.Pid, l.Command)
		}
	}
	fmt.Fprintf(w, "\nFull go test -json output: %s; took %s\n", resultsFile, took.Round(time.Second))
	fmt.Fprintf(w, "%d failed as the list expects, %d skipped\n", len(v.expectedTests()), v.skipped)
	// The closing line counts the findings as failures: tests that failed
	// unlisted, and listed tests that did not fail.
	fmt.Fprintf(w, "compat: %d passed, %d failed\n", v.passed, len(v.unexpectedFail)+len(v.unexpectedPass)+len(v.notRun)+len(v.missing))
}

func describe(outcome string) string {
	if outcome == "" {
		return "did not run"
	}
	return "was skipped"
}
