package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/e2e/agentproc"
)

// execTimeout bounds one `drover alloc exec` in these tests.
const execTimeout = time.Minute

// execCLI runs `drover alloc exec` with args against the agent, with
// stdin, and returns its combined output and exit code.
func (a *testAgent) execCLI(stdin io.Reader, args ...string) (string, int) {
	a.t.Helper()
	ctx, cancel := context.WithTimeout(a.t.Context(), execTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentproc.Binary(a.t), append([]string{"alloc", "exec", "-address=" + a.Addr}, args...)...)
	cmd.Env = cleanEnv()
	cmd.Stdin = stdin
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return out.String(), exit.ExitCode()
	case err != nil:
		a.t.Fatalf("drover alloc exec %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), 0
}

// cleanEnv is this process's environment without DROVER_* or NOMAD_*.
func cleanEnv() []string {
	return slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "DROVER_") || strings.HasPrefix(kv, "NOMAD_")
	})
}

// TestAllocExec_CLI runs commands in a raw_exec task with the CLI as a
// user does: output and exit code, piped input, -job, and a terminal
// session (sized as the user's, ended by the command or by the escape).
func TestAllocExec_CLI(t *testing.T) {
	skipShort(t)
	t.Parallel()
	a := startDevAgent(t)
	jobID := a.runJob(sleepJob("execcli", "batch", "", 600))
	alloc := a.waitRunning(jobID)

	out, code := a.execCLI(nil, "-i=false", alloc.ID[:8], "/bin/sh", "-c", "echo out; echo err >&2; exit 4")
	must.Eq(t, 4, code, must.Sprint(out))
	must.StrContains(t, out, "out\n")
	must.StrContains(t, out, "err\n")

	input := strings.Repeat("some input\n", 500)
	out, code = a.execCLI(strings.NewReader(input), alloc.ID, "cat")
	must.Eq(t, 0, code)
	must.Eq(t, input, out)

	out, code = a.execCLI(nil, "-job", "-task=t", jobID, "echo", "picked")
	must.Eq(t, 0, code, must.Sprint(out))
	must.Eq(t, "picked\n", out)

	out, code = a.execCLI(nil, "-task=nope", alloc.ID, "echo")
	must.Eq(t, 1, code)
	must.StrContains(t, out, `Could not find task named "nope"`)

	out, code = a.execCLI(nil, alloc.ID, "/no/such/program")
	must.Eq(t, 1, code)
	must.StrContains(t, out, "/no/such/program")

	t.Run("terminal", func(t *testing.T) {
		term := startOnTerminal(t, a, alloc.ID, "/bin/sh")
		term.send("stty size; tty >/dev/null && echo on-a-tty\r")
		term.waitFor("23 79")
		term.waitFor("on-a-tty")
		term.send("exit 3\r")
		must.Eq(t, 3, term.wait())
	})
	t.Run("escape", func(t *testing.T) {
		term := startOnTerminal(t, a, alloc.ID, "/bin/sh")
		term.send("echo started\r")
		term.waitFor("started")
		term.send("~.")
		must.Eq(t, 1, term.wait())
		must.StrContains(t, term.output(), "Connection closed by the escape sequence")
	})
}

// terminalSession is `drover alloc exec` on a terminal this test made.
type terminalSession struct {
	t    *testing.T
	ptmx *os.File
	cmd  *exec.Cmd

	mu      sync.Mutex
	out     bytes.Buffer
	changed chan struct{}
	copied  chan struct{}
}

// startOnTerminal runs `drover alloc exec` on a new terminal of 23 rows
// and 79 columns.
func startOnTerminal(t *testing.T, a *testAgent, allocID string, command ...string) *terminalSession {
	t.Helper()
	ptmx, tty, err := pty.Open()
	must.NoError(t, err)
	must.NoError(t, pty.Setsize(ptmx, &pty.Winsize{Rows: 23, Cols: 79}))
	ctx, cancel := context.WithTimeout(t.Context(), execTimeout)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, agentproc.Binary(t), append([]string{"alloc", "exec", "-address=" + a.Addr, allocID}, command...)...)
	cmd.Env = cleanEnv()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	must.NoError(t, cmd.Start())
	tty.Close()
	s := &terminalSession{t: t, ptmx: ptmx, cmd: cmd, changed: make(chan struct{}, 1), copied: make(chan struct{})}
	go func() {
		defer close(s.copied)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			s.mu.Lock()
			s.out.Write(buf[:n])
			s.mu.Unlock()
			select {
			case s.changed <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		ptmx.Close()
		<-s.copied
	})
	return s
}

func (s *terminalSession) send(keys string) {
	s.t.Helper()
	_, err := s.ptmx.WriteString(keys)
	must.NoError(s.t, err)
}

func (s *terminalSession) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// waitFor waits until the terminal has shown text.
func (s *terminalSession) waitFor(text string) {
	s.t.Helper()
	timeout := time.After(execTimeout)
	for !strings.Contains(s.output(), text) {
		select {
		case <-s.changed:
		case <-timeout:
			s.t.Fatalf("the terminal never showed %q; it shows %q", text, s.output())
		}
	}
}

// wait waits for the CLI to exit and returns its exit code.
func (s *terminalSession) wait() int {
	s.t.Helper()
	err := s.cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	must.NoError(s.t, err, must.Sprint(s.output()))
	return 0
}

// TestAllocExec_ExecDriverIsolated runs a command in an exec task: it is
// inside the task's isolation, as the task is: its root (not the host's
// files), its PID namespace (the task is PID 1) and its user.
func TestAllocExec_ExecDriverIsolated(t *testing.T) {
	skipShort(t)
	requireRoot(t)
	t.Parallel()
	a := startDevAgent(t)
	marker := filepath.Join(a.dir, "host-only-marker")
	must.NoError(t, os.WriteFile(marker, []byte("host"), 0o644))
	jobID := a.runJob(`job "execiso" {
  type = "batch"
  group "g" {
    task "t" {
      driver = "exec"
      user   = "nobody"
      config { command = "/bin/sleep" args = ["600"] }
    }
  }
}`)
	alloc := a.waitRunning(jobID)
	script := fmt.Sprintf(`test -e %s && echo host-visible
cat /proc/1/cmdline | tr '\0' ' '; echo
ls /proc | grep -c '^[0-9]'
id -un
pwd
test -d /local && test -d /alloc && echo task-dirs`, marker)
	out, code := a.execCLI(nil, alloc.ID, "/bin/sh", "-c", script)
	must.Eq(t, 0, code, must.Sprint(out))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	must.SliceNotContains(t, lines, "host-visible")
	must.Eq(t, "/bin/sleep 600 ", lines[0])
	// The task, the shell, ls and grep: no host process.
	must.True(t, len(lines[1]) == 1 && lines[1] <= "4", must.Sprintf("processes seen: %s", lines[1]))
	must.Eq(t, "nobody", lines[2])
	must.Eq(t, "/", lines[3])
	must.Eq(t, "task-dirs", lines[4])

	// A command of the host's that the root lacks is not found there.
	out, code = a.execCLI(nil, alloc.ID, marker)
	must.Eq(t, 1, code)
	must.StrContains(t, out, "no such file or directory")
}
