package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json's TestEvent).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// results are what one run of the suite did.
type results struct {
	// outcome maps each test and subtest to "pass", "fail" or "skip".
	outcome map[string]string
	// order lists the tests in the order they ended.
	order []string
	// output holds each top-level test's lines of output.
	output map[string][]string
	// packageFailed lists the packages whose test binary failed; with no
	// failed test in them, that is a build failure, a panic or a timeout.
	packageFailed []string
	// packageOutput holds a package's lines of output outside any test.
	packageOutput map[string][]string
}

// maxOutputLines bounds what is kept of one test's output: the agents the
// suite starts write to the test binary's standard output, and a long
// test can collect a lot of it.
const maxOutputLines = 2000

// readResults decodes a `go test -json` stream. A line that is not JSON
// (a build error go test printed as text) is kept as the output of the
// package "".
func readResults(r io.Reader) (*results, error) {
	res := &results{
		outcome:       map[string]string{},
		output:        map[string][]string{},
		packageOutput: map[string][]string{},
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			res.packageOutput[""] = appendBounded(res.packageOutput[""], sc.Text())
			continue
		}
		res.add(e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read go test's output: %w", err)
	}
	return res, nil
}

func (res *results) add(e event) {
	switch {
	case e.Action == "output" && e.Test != "":
		top, _, _ := strings.Cut(e.Test, "/")
		res.output[top] = appendBounded(res.output[top], strings.TrimRight(e.Output, "\n"))
	case e.Action == "output" || e.Action == "build-output":
		res.packageOutput[e.Package] = appendBounded(res.packageOutput[e.Package], strings.TrimRight(e.Output, "\n"))
	case e.Test != "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip"):
		if _, seen := res.outcome[e.Test]; !seen {
			res.order = append(res.order, e.Test)
		}
		res.outcome[e.Test] = e.Action
	case e.Test == "" && (e.Action == "fail" || e.Action == "build-fail"):
		res.packageFailed = append(res.packageFailed, e.Package)
	}
}

func appendBounded(lines []string, line string) []string {
	if len(lines) >= maxOutputLines {
		return lines
	}
	return append(lines, line)
}

// assertion is the start of a test's own report of a failure, as the
// testing package indents it: "    jobs_test.go:42: ...".
var assertion = regexp.MustCompile(`^\s+[\w.-]+_test\.go:\d+:`)

// failureLines picks from a test's output its own report of what failed
// and the lines that continue it, leaving out the agents' log, and at
// most max lines.
func failureLines(lines []string, max int) []string {
	var out []string
	in := false
	for _, l := range lines {
		switch {
		case assertion.MatchString(l) || strings.HasPrefix(strings.TrimSpace(l), "--- FAIL") || strings.HasPrefix(l, "panic:"):
			in = true
			out = append(out, l)
		case in && strings.HasPrefix(l, "        "):
			out = append(out, l)
		default:
			in = false
		}
		if len(out) >= max {
			break
		}
	}
	return out
}
