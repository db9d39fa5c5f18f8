// Command compat runs the test suite of github.com/hashicorp/nomad/api, the
// official client module, at the version go.mod requires, against Drover,
// as a Nomad user switching over would: the drover binary is on PATH as
// `nomad` (a symlink, nothing translated), and the suite's own harness
// (its internal/testutil) starts it with Nomad's agent configuration.
//
// The outcome is held to expected-failures.txt, the tests expected to fail
// each with its reason: an unlisted test that fails fails the run, and so
// does a listed test that passes, so that the list stays true and can only
// shrink. `make test-compat` runs it.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// suite is the packages whose tests are run.
const suite = "github.com/hashicorp/nomad/api/..."

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	drover   string
	expected string
	results  string
	procs    int
	parallel int
	timeout  time.Duration
	only     string
}

func parseOptions(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("compat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.drover, "drover", "bin/drover", "the drover binary to run as `nomad`")
	fs.StringVar(&o.expected, "expected", "e2e/compat/expected-failures.txt", "the list of tests expected to fail")
	fs.StringVar(&o.results, "results", "bin/compat-results.json", "where to keep go test's full -json output")
	fs.IntVar(&o.procs, "p", 2, "go test -p: test binaries built and run at once")
	fs.IntVar(&o.parallel, "parallel", 4, "go test -parallel: tests, each with its own agent, run at once")
	fs.DurationVar(&o.timeout, "timeout", 8*time.Minute, "go test -timeout")
	fs.StringVar(&o.only, "run", "", "go test -run: run only these tests (the list is then held to them only)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	return o, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseOptions(args, stderr)
	if err != nil {
		return 2
	}
	if err := runSuite(o, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "compat:", err)
		return 1
	}
	return 0
}

func runSuite(o *options, stdout, stderr io.Writer) error {
	f, err := os.Open(o.expected)
	if err != nil {
		return err
	}
	ex, err := parseExpectations(f, o.expected)
	_ = f.Close()
	if err != nil {
		return err
	}
	drover, err := filepath.Abs(o.drover)
	if err != nil {
		return err
	}
	if _, err := os.Stat(drover); err != nil {
		return fmt.Errorf("the drover binary: %w (make build makes it)", err)
	}

	// The agents' data directories (the harness makes them with
	// os.MkdirTemp) go under tmp, with the `nomad` on PATH; tmp is removed
	// at the end, so a test that leaves its agent leaves nothing on disk.
	tmp, err := os.MkdirTemp("", "drover-compat-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	binDir := filepath.Join(tmp, "bin")
	if err := os.Mkdir(binDir, 0o755); err != nil {
		return err
	}
	if err := os.Symlink(drover, filepath.Join(binDir, "nomad")); err != nil {
		return err
	}

	if err := becomeSubreaper(); err != nil {
		return err
	}
	out, err := os.Create(o.results)
	if err != nil {
		return err
	}
	defer func() { _ = out.Close() }()

	goArgs := []string{"test", "-json", "-count=1",
		"-p", strconv.Itoa(o.procs), "-parallel", strconv.Itoa(o.parallel),
		"-timeout", o.timeout.String()}
	if p := ex.skipPattern(); p != "" {
		goArgs = append(goArgs, "-skip", p)
	}
	env := append(suiteEnv(os.Environ()),
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"TMPDIR="+tmp,
		// The build's own temporary files stay where they were.
		"GOTMPDIR="+os.TempDir(),
	)
	started := time.Now()
	fmt.Fprintf(stdout, "compat: go %s (nomad -> %s)\n", strings.Join(goArgs, " "), drover)
	res, left, err := runGoTest(env, goArgs, o.only, out, stderr)
	if err != nil {
		return err
	}

	all, err := listTests(o.only, ex)
	if err != nil {
		return err
	}
	if o.only != "" {
		ex = ex.within(res)
	}
	v := judge(res, ex)
	v.missing = missing(all, res)
	if retry := retryable(v); len(retry) > 0 {
		// A test that fails unlisted is run once more, alone with the
		// others that did: one that passes then failed for the load of
		// the first run (a 10 s wait of the harness), and is reported
		// as flaky rather than failed.
		fmt.Fprintf(stdout, "compat: running again what failed unlisted: %s\n", strings.Join(retry, " "))
		again, more, err := runGoTest(env, goArgs, "^("+strings.Join(retry, "|")+")$", out, stderr)
		if err != nil {
			return err
		}
		left = append(left, more...)
		v.forgive(again)
	}
	report(stdout, res, ex, v, left, time.Since(started), o.results)
	if !v.ok() {
		return fmt.Errorf("the suite's results differ from %s", o.expected)
	}
	return nil
}

// suiteEnv is env without the NOMAD_ variables Nomad's client reads
// (NOMAD_ADDR, NOMAD_TOKEN, NOMAD_NAMESPACE, ...), which would point the
// suite's clients elsewhere than its agents, keeping the suite's own
// knobs (NOMAD_TEST_LOG_LEVEL, NOMAD_SLOW_TEST).
func suiteEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "NOMAD_") && name != "NOMAD_TEST_LOG_LEVEL" && name != "NOMAD_SLOW_TEST" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// runGoTest runs go test with args (and -run pattern, unless empty) in
// env, copies its -json output to out, and stops what it left behind.
func runGoTest(env, args []string, pattern string, out, stderr io.Writer) (*results, []leftover, error) {
	args = slices.Clone(args)
	if pattern != "" {
		args = append(args, "-run", pattern)
	}
	args = append(args, suite)
	cmd := exec.Command("go", args...)
	cmd.Env = env
	cmd.Stderr = stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	res, readErr := readResults(io.TeeReader(pipe, out))
	_ = cmd.Wait() // go test exits 1 when a test fails: the results tell
	left := stopLeftovers(5 * time.Second)
	return res, left, readErr
}

// listTests lists the suite's top-level tests that match pattern ("" for
// all), less those the list leaves out: the tests a complete run ends.
func listTests(pattern string, ex *expectations) ([]string, error) {
	if pattern == "" {
		pattern = "."
	}
	out, err := exec.Command("go", "test", "-list", pattern, suite).Output()
	if err != nil {
		return nil, fmt.Errorf("go test -list: %w", err)
	}
	var tests []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "Test") && ex.skip[line] == nil {
			tests = append(tests, line)
		}
	}
	return tests, nil
}

// missing lists the tests of all that res has no outcome for: a test
// binary that panicked or timed out ends none of the tests after.
func missing(all []string, res *results) []string {
	var out []string
	for _, t := range all {
		if _, ok := res.outcome[t]; !ok {
			out = append(out, t)
		}
	}
	return out
}
