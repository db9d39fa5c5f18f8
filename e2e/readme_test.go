package e2e

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/e2e/agentproc"
	"github.com/drover-io/drover/internal/waitfor"
)

// TestREADME runs the README as a newcomer would: `make dev` with the
// ARGS the README shows (the agent started as the Makefile starts it, on
// the address the README picks, with a free port), the CLI pointed at it
// by DROVER_ADDR as the README says, and every command of the README's
// console blocks run in order from the repository's top, its output
// compared with the README's, IDs and times aside. A "..." line in the
// README stands for any lines; an ID the README uses in a command is the
// one that output printed in its place. A command that shows a status
// is run again until its output matches, since the README shows states
// that come in time (running, then complete at the deadline); a command
// that fails must be followed by `echo $?`, which prints its exit code.
func TestREADME(t *testing.T) {
	t.Parallel()
	skipShort(t)
	root, err := filepath.Abs("..")
	must.NoError(t, err)
	readme := readREADME(t, root)

	args, addr := readmeDevAddress(t, readme)
	dryRun := makeDryRun(t, root, args)
	must.StrContains(t, dryRun, "./bin/drover agent -dev "+strings.Join(args, " ")+"\n",
		must.Sprint("make dev does not pass ARGS to the agent"))
	must.StrContains(t, dryRun, `echo "==> building bin/drover`, must.Sprint("make dev does not say that it builds"))

	a := startREADMEAgent(t, args, addr.Hostname())
	r := &readmeRunner{t: t, root: root, env: []string{"DROVER_ADDR=" + a.Addr}, ids: map[string]string{}}
	blocks := fencedConsoleBlocks(readme)
	must.SliceNotEmpty(t, blocks, must.Sprint("the README has no console blocks"))
	for _, block := range blocks {
		r.run(consoleSteps(block))
	}
}

func readREADME(t *testing.T, root string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	must.NoError(t, err)
	return string(data)
}

var (
	makeDevLine    = regexp.MustCompile(`(?m)^make dev ARGS="([^"]*)"$`)
	exportAddrLine = regexp.MustCompile(`(?m)^export DROVER_ADDR=(\S+)$`)
)

// readmeDevAddress reads the README's `make dev ARGS="..."` and its
// DROVER_ADDR, and checks that they name the same address and port.
func readmeDevAddress(t *testing.T, readme string) ([]string, *url.URL) {
	t.Helper()
	m := makeDevLine.FindStringSubmatch(readme)
	must.SliceLen(t, 2, m, must.Sprint(`the README shows no make dev ARGS="..." line`))
	args := strings.Fields(m[1])
	e := exportAddrLine.FindStringSubmatch(readme)
	must.SliceLen(t, 2, e, must.Sprint("the README shows no export DROVER_ADDR=... line"))
	addr, err := url.Parse(e[1])
	must.NoError(t, err)
	must.Eq(t, flagValue(args, "-bind"), addr.Hostname(), must.Sprint("DROVER_ADDR's host is not the -bind of make dev's ARGS"))
	must.Eq(t, flagValue(args, "-http-port"), addr.Port(), must.Sprint("DROVER_ADDR's port is not the -http-port of make dev's ARGS"))
	return args, addr
}

// flagValue is the value that follows name in args, "" when none does.
func flagValue(args []string, name string) string {
	i := slices.Index(args, name)
	if i < 0 || i+1 >= len(args) {
		return ""
	}
	return args[i+1]
}

// makeDryRun prints what `make dev ARGS=...` would run.
func makeDryRun(t *testing.T, root string, args []string) string {
	t.Helper()
	cmd := exec.Command("make", "-n", "dev", "ARGS="+strings.Join(args, " "))
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	must.NoError(t, err, must.Sprintf("make -n dev:\n%s", out))
	return string(out)
}

// startREADMEAgent starts `drover agent -dev` with the README's ARGS, but
// on free ports, so that runs of the test on one machine do not collide,
// and its alloc dir in the test's directory.
func startREADMEAgent(t *testing.T, args []string, host string) *agentproc.Agent {
	t.Helper()
	var rest []string
	for i := 0; i < len(args); i++ {
		if args[i] == "-http-port" || args[i] == "-rpc-port" {
			i++
			continue
		}
		rest = append(rest, args[i])
	}
	dir := t.TempDir()
	allocDir := filepath.Join(dir, "alloc")
	config := writeFile(t, dir, "agent.hcl", fmt.Sprintf("client {\n  alloc_dir = %q\n}\n", allocDir))
	a := agentproc.Start(t, agentproc.Options{
		Dir:      dir,
		Host:     host,
		Args:     append([]string{"-dev", "-config", config}, rest...),
		TaskPath: allocDir + string(filepath.Separator),
	})
	a.WaitReady(readyTimeout)
	return a
}

// fencedConsoleBlocks returns the contents of md's ```console blocks.
func fencedConsoleBlocks(md string) []string {
	var blocks []string
	var cur strings.Builder
	in := false
	for line := range strings.Lines(md) {
		trimmed := strings.TrimSpace(line)
		switch {
		case !in && trimmed == "```console":
			in = true
			cur.Reset()
		case in && trimmed == "```":
			in = false
			blocks = append(blocks, cur.String())
		case in:
			cur.WriteString(line)
		}
	}
	return blocks
}

// consoleStep is one command of a console block and the output the
// README shows for it.
type consoleStep struct {
	command string
	want    []string
}

func consoleSteps(block string) []consoleStep {
	var steps []consoleStep
	for line := range strings.Lines(block) {
		line = strings.TrimRight(line, "\n")
		if cmd, ok := strings.CutPrefix(line, "$ "); ok {
			steps = append(steps, consoleStep{command: cmd})
			continue
		}
		if len(steps) > 0 {
			steps[len(steps)-1].want = append(steps[len(steps)-1].want, line)
		}
	}
	return steps
}

// readmeRunner runs console steps in order, as one shell session would.
type readmeRunner struct {
	t    *testing.T
	root string
	env  []string
	// ids maps the IDs the README shows to the ones the run printed.
	ids      map[string]string
	lastCode int
}

// statusCommand matches the commands that show a state, which the
// runner runs again until the state the README shows has come.
var statusCommand = regexp.MustCompile(`^drover \w+ status\b`)

// readmeStatusTimeout bounds the wait for a state the README shows: the
// tour's deadline is 10 s away, and the machine may be loaded.
const readmeStatusTimeout = 45 * time.Second

func (r *readmeRunner) run(steps []consoleStep) {
	t := r.t
	for i, step := range steps {
		switch {
		case step.command == "export PATH=$PWD/bin:$PATH":
			// The runner runs the binary the e2e suite built.
			continue
		case step.command == "echo $?":
			r.compare(step, strconv.Itoa(r.lastCode)+"\n")
			continue
		case !strings.HasPrefix(step.command, "drover "):
			t.Fatalf("README console command %q: the README test runs only drover commands, export PATH and echo $?", step.command)
		}
		failureShown := i+1 < len(steps) && steps[i+1].command == "echo $?"
		if !statusCommand.MatchString(step.command) {
			out, code := r.drover(step.command)
			r.lastCode = code
			if code != 0 && !failureShown {
				t.Fatalf("README command %q exited %d (a failure the README shows is followed by echo $?):\n%s", step.command, code, out)
			}
			r.compare(step, out)
			continue
		}
		var out string
		var bound map[string]string
		waitfor.NoError(t, fmt.Sprintf("README command %q to print what the README shows", step.command), func() error {
			var code int
			out, code = r.drover(step.command)
			r.lastCode = code
			var err error
			if bound, err = matchOutput(step.want, outputLines(out), r.ids); err != nil {
				return fmt.Errorf("%w: %v; output:\n%s", errNotYet, err, out)
			}
			if code != 0 && !failureShown {
				return fmt.Errorf("exit %d:\n%s", code, out)
			}
			return nil
		}, wait.Timeout(readmeStatusTimeout), wait.Gap(200*time.Millisecond))
		r.ids = bound
	}
}

// drover runs a README command, its IDs replaced by those the run
// printed, from the repository's top.
func (r *readmeRunner) drover(command string) (string, int) {
	t := r.t
	fields := strings.Fields(command)[1:]
	for i, f := range fields {
		if !idToken.MatchString(f) {
			continue
		}
		real, ok := r.ids[f]
		if !ok {
			t.Fatalf("README command %q uses the ID %s before any output printed it", command, f)
		}
		fields[i] = real
	}
	return runDrover(t, r.root, r.env, fields...)
}

func (r *readmeRunner) compare(step consoleStep, out string) {
	r.t.Helper()
	bound, err := matchOutput(step.want, outputLines(out), r.ids)
	if err != nil {
		r.t.Fatalf("README command %q: %v\nthe README shows:\n%s\nthe run printed:\n%s",
			step.command, err, strings.Join(step.want, "\n"), out)
	}
	r.ids = bound
}

func outputLines(out string) []string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	if len(lines) == 1 && lines[0] == "" {
		return nil
	}
	return lines
}

// idToken is an ID as the CLI prints it: a UUID or its first 8
// characters.
var idToken = regexp.MustCompile(`^[0-9a-f]{8}(?:-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})?$`)

// variablePart matches, in a line the README shows, what differs from
// run to run: IDs, times, and the durations relative to now.
var variablePart = regexp.MustCompile(
	`(?P<id>\b[0-9a-f]{8}(?:-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})?\b)` +
		`|(?P<time>\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{3})?Z)` +
		`|(?P<in>\(in \S+\))` +
		`|(?P<ago>\b[0-9][0-9a-zµ.]* ago\b)` +
		`|(?P<left>^Time Left +=\s+[0-9][0-9a-zµ.]*$)`)

// duration is a Go duration as the CLI prints it.
const duration = `[0-9][0-9a-zµ.]*`

// linePattern turns a line the README shows into a pattern the printed
// line must match in full, and lists the IDs it captures, in order.
func linePattern(want string) (*regexp.Regexp, []string) {
	var b strings.Builder
	var ids []string
	last := 0
	for _, m := range variablePart.FindAllStringSubmatchIndex(want, -1) {
		b.WriteString(regexp.QuoteMeta(want[last:m[0]]))
		part := want[m[0]:m[1]]
		switch {
		case m[2] >= 0:
			ids = append(ids, part)
			b.WriteString(`([0-9a-f]{8}(?:-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})?)`)
		case m[4] >= 0:
			// To the second, or to the millisecond as the README shows.
			b.WriteString(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d`)
			if strings.Contains(part, ".") {
				b.WriteString(`\.\d{3}`)
			}
			b.WriteString(`Z`)
		case m[6] >= 0:
			b.WriteString(`\(in ` + duration + `\)`)
		case m[8] >= 0:
			b.WriteString(duration + ` ago`)
		default:
			prefix := part[:strings.Index(part, "=")+1]
			b.WriteString(regexp.QuoteMeta(prefix) + `\s+` + duration)
		}
		last = m[1]
	}
	b.WriteString(regexp.QuoteMeta(want[last:]))
	return regexp.MustCompile(`^` + b.String() + `$`), ids
}

// matchOutput matches printed lines against the README's, "..." standing
// for any lines, and returns ids with the IDs the match bound added. An
// ID the README shows again must be the same ID again.
func matchOutput(want, got []string, ids map[string]string) (map[string]string, error) {
	if bound, ok := matchFrom(want, got, ids); ok {
		return bound, nil
	}
	return nil, errors.New("the output differs from the README's")
}

func matchFrom(want, got []string, ids map[string]string) (map[string]string, bool) {
	if len(want) == 0 {
		return ids, len(got) == 0
	}
	if want[0] == "..." {
		for k := 0; k <= len(got); k++ {
			if bound, ok := matchFrom(want[1:], got[k:], ids); ok {
				return bound, true
			}
		}
		return nil, false
	}
	if len(got) == 0 {
		return nil, false
	}
	bound, ok := matchLine(want[0], got[0], ids)
	if !ok {
		return nil, false
	}
	return matchFrom(want[1:], got[1:], bound)
}

func matchLine(want, got string, ids map[string]string) (map[string]string, bool) {
	pattern, names := linePattern(strings.TrimRight(want, " "))
	m := pattern.FindStringSubmatch(got)
	if m == nil {
		return nil, false
	}
	bound, cloned := ids, false
	for i, readmeID := range names {
		real := m[i+1]
		if prev, ok := bound[readmeID]; ok {
			if prev != real {
				return nil, false
			}
			continue
		}
		if !cloned {
			// The caller's map stays as it was if a later line fails.
			bound, cloned = maps.Clone(ids), true
			if bound == nil {
				bound = map[string]string{}
			}
		}
		bound[readmeID] = real
	}
	return bound, true
}

// The matcher itself: IDs bind and must agree, times and relative
// durations vary, "..." skips lines, and anything else must be equal.
func TestREADME_matcher(t *testing.T) {
	want := []string{
		`==> 2026-11-30T01:09:09Z: Monitoring evaluation "7b15aacf"`,
		"...",
		`Deadline            = 2026-11-30T01:09:19.423Z (in 6s)`,
		`Time Left           = 6s`,
		`Max Run Duration    = 10s`,
		`Allocation "39b3c532" on node "7b15aacf"`,
	}
	got := []string{
		`==> 2026-12-01T19:57:25Z: Monitoring evaluation "9e07b1f2"`,
		`anything`,
		`else`,
		`Deadline            = 2026-12-01T19:57:35.017Z (in 1m7.5s)`,
		`Time Left           = 1m7.5s`,
		`Max Run Duration    = 10s`,
		`Allocation "0f5994a5" on node "9e07b1f2"`,
	}
	bound, err := matchOutput(want, got, nil)
	must.NoError(t, err)
	must.Eq(t, map[string]string{"7b15aacf": "9e07b1f2", "39b3c532": "0f5994a5"}, bound)

	for name, change := range map[string]func([]string){
		"an ID that does not agree": func(g []string) { g[6] = `Allocation "0f5994a5" on node "00000000"` },
		"a budget":                  func(g []string) { g[5] = `Max Run Duration    = 11s` },
		"a missing line":            func(g []string) { g[4] = `` },
		"a time to the second":      func(g []string) { g[3] = `Deadline            = 2026-12-01T19:57:35Z (in 1m7.5s)` },
		"a word":                    func(g []string) { g[0] = strings.Replace(g[0], "Monitoring", "Watching", 1) },
	} {
		g := slices.Clone(got)
		change(g)
		_, err := matchOutput(want, g, nil)
		must.Error(t, err, must.Sprint(name))
	}
	_, err = matchOutput(want, append(slices.Clone(got), "a line more"), nil)
	must.Error(t, err, must.Sprint("a line the README does not show, with no ... for it"))
}
