package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

// stream builds a go test -json stream: each entry is "action test".
func stream(entries ...string) string {
	var b strings.Builder
	for _, e := range entries {
		action, test, _ := strings.Cut(e, " ")
		b.WriteString(`{"Action":"` + action + `","Package":"p","Test":"` + test + `"}` + "\n")
	}
	return b.String()
}

func mustResults(t *testing.T, src string) *results {
	t.Helper()
	res, err := readResults(strings.NewReader(src))
	must.NoError(t, err)
	return res
}

func mustExpect(t *testing.T, src string) *expectations {
	t.Helper()
	ex, err := parseExpectations(strings.NewReader(src), "list")
	must.NoError(t, err)
	return ex
}

func TestJudge(t *testing.T) {
	ex := mustExpect(t, `
fail: no deployments
see: HTTP API routes
TestDeploy
TestJobs/by_prefix
TestGone
TestFixed
TestSkipped
`)
	res := mustResults(t, stream(
		"pass TestOK",
		// A parent failed only by its listed subtest is expected.
		"pass TestJobs/exact",
		"fail TestJobs/by_prefix",
		"fail TestJobs",
		// A parent with an unlisted failed subtest: the subtest is the
		// finding.
		"fail TestNodes/purge",
		"fail TestNodes",
		// A listed test's subtests fail with it.
		"fail TestDeploy/sub/deeper",
		"fail TestDeploy/sub",
		// An unlisted test that fails by itself.
		"fail TestNew",
		"fail TestDeploy",
		"pass TestFixed",
		"skip TestSkipped",
		"skip TestNoNomad",
	))
	v := judge(res, ex)
	must.Eq(t, 2, v.passed)
	must.Eq(t, 2, v.skipped)
	r := ex.fail["TestDeploy"]
	must.Eq(t, []string{"TestJobs", "TestDeploy"}, v.expected[r])
	must.Eq(t, []string{"TestNodes/purge", "TestNew"}, v.unexpectedFail)
	must.Eq(t, []string{"TestFixed"}, v.unexpectedPass)
	must.Eq(t, []string{"TestGone", "TestSkipped"}, v.notRun)
	must.False(t, v.ok())
}

func TestJudge_AsListed(t *testing.T) {
	ex := mustExpect(t, "fail: no deployments\nsee: HTTP API routes\nTestDeploy\n")
	v := judge(mustResults(t, stream("pass TestOK", "fail TestDeploy")), ex)
	must.True(t, v.ok())

	// A test that never ended (the binary panicked) is a finding too.
	v.missing = missing([]string{"TestOK", "TestDeploy", "TestAfterPanic"}, mustResults(t, stream("pass TestOK", "fail TestDeploy")))
	must.Eq(t, []string{"TestAfterPanic"}, v.missing)
	must.False(t, v.ok())
}

func TestReadResults(t *testing.T) {
	src := `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA/sub","Output":"    a_test.go:12: \n"}
{"Action":"output","Package":"p","Test":"TestA/sub","Output":"        a_test.go:12: expected nil error\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"==> Starting Drover agent...\n"}
{"Action":"fail","Package":"p","Test":"TestA/sub"}
{"Action":"fail","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Output":"FAIL\n"}
{"Action":"fail","Package":"p"}
# p [p.test]
not json at all
`
	res := mustResults(t, src)
	must.Eq(t, []string{"TestA/sub", "TestA"}, res.order)
	must.Eq(t, "fail", res.outcome["TestA"])
	must.Eq(t, []string{"p"}, res.packageFailed)
	must.Eq(t, []string{"FAIL"}, res.packageOutput["p"])
	must.Eq(t, []string{"# p [p.test]", "not json at all"}, res.packageOutput[""])
	// The test's own report, without the agent's lines.
	must.Eq(t, []string{"    a_test.go:12: ", "        a_test.go:12: expected nil error"}, failureLines(res.output["TestA"], 10))
}

func TestReport(t *testing.T) {
	ex := mustExpect(t, "fail: no deployments\nsee: HTTP API routes\nTestDeploy\nTestFixed\n")
	res := mustResults(t, stream("pass TestOK", "fail TestDeploy", "pass TestFixed", "fail TestNew"))
	v := judge(res, ex)
	var out bytes.Buffer
	report(&out, res, ex, v, []leftover{{Pid: 42, Command: "nomad agent -dev"}}, 3*time.Second, "r.json")
	s := out.String()
	must.StrContains(t, s, "    1 no deployments (HTTP API routes)\n")
	must.StrContains(t, s, "UNEXPECTED FAILURE: TestNew")
	must.StrContains(t, s, "UNEXPECTED PASS: TestFixed")
	must.StrContains(t, s, "42 nomad agent -dev")
	must.StrHasSuffix(t, "compat: 2 passed, 2 failed\n", s)
}

func TestRetryAndForgive(t *testing.T) {
	v := &verdict{unexpectedFail: []string{"TestA/sub", "TestA/other", "TestB", "TestC"}}
	must.Eq(t, []string{"TestA", "TestB", "TestC"}, retryable(v))

	// TestA and TestC pass when run again; TestB fails again.
	v.forgive(mustResults(t, stream("pass TestA/sub", "pass TestA", "fail TestB", "pass TestC")))
	must.Eq(t, []string{"TestB"}, v.unexpectedFail)
	must.Eq(t, []string{"TestA", "TestC"}, v.flaky)
	must.False(t, v.ok())
	v.forgive(mustResults(t, stream("pass TestB")))
	must.True(t, v.ok())

	// Too many unlisted failures are not run again.
	many := &verdict{}
	for i := range maxRetried + 1 {
		many.unexpectedFail = append(many.unexpectedFail, "TestN"+strings.Repeat("x", i))
	}
	must.SliceEmpty(t, retryable(many))
}
