package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/e2e/agentproc"
)

// TestLifecycle drives a job's life through the CLI on a dev agent: a
// stop in the middle of a run, and the logs of a running task.
func TestLifecycle(t *testing.T) {
	t.Parallel()
	a := startDevAgent(t)

	t.Run("job stop mid-run", func(t *testing.T) {
		t.Parallel()
		a.with(t).jobStopMidRun()
	})
	t.Run("alloc logs", func(t *testing.T) {
		t.Parallel()
		a.with(t).allocLogs()
	})
}

// jobStopMidRun stops a running batch job with `drover job stop`: the
// task is killed, its process is gone, the allocation stops and the job
// is dead; `job stop -purge` then removes the job.
func (a *testAgent) jobStopMidRun() {
	t := a.t
	out := a.mustCLI("job run", writeFile(t, t.TempDir(), "stopme.hcl", sleepJob("stopme", "batch", "", 1000)))
	must.RegexMatch(t, regexp.MustCompile(`Evaluation "\w+" finished with status "complete"`), out)
	alloc := a.waitRunning("stopme")
	procs := a.taskProcs(alloc.ID)
	must.SliceNotEmpty(t, procs, must.Sprint("no process runs the task"))

	a.mustCLI("job stop", "stopme")
	done := a.waitAlloc(alloc.ID, "stopped", 30*time.Second, terminal)
	must.Eq(t, api.AllocDesiredStatusStop, done.DesiredStatus)
	must.Eq(t, api.AllocClientStatusComplete, done.ClientStatus)
	ts := task(t, done, "t")
	must.Eq(t, api.TaskStateDead, ts.State)
	must.NotNil(t, event(ts, "Killing"), must.Sprintf("events: %v", events(ts)))
	must.NotNil(t, event(ts, "Killed"), must.Sprintf("events: %v", events(ts)))
	must.Eq(t, 0, ts.Restarts)
	a.waitJobStatus("stopme", "dead", 10*time.Second)
	a.waitFor("the task's processes to end", 10*time.Second, func() error {
		if left := alive(procs); len(left) > 0 {
			return fmt.Errorf("%w: pids %v live", errNotYet, left)
		}
		return nil
	})
	stubs, err := a.jobAllocs("stopme")
	must.NoError(t, err)
	must.SliceLen(t, 1, stubs, must.Sprintf("a stopped job's allocation is not replaced: %s", allocIDs(stubs)))

	a.mustCLI("job stop", "-purge", "stopme")
	_, _, err = a.api.Jobs().Info("stopme", nil)
	must.Error(t, err, must.Sprint("the purged job must be gone"))
	must.StrContains(t, err.Error(), "404")
	out, code := a.cli("job status", "stopme")
	must.NotEq(t, 0, code, must.Sprintf("job status of a purged job:\n%s", out))
	must.StrContains(t, out, `No job(s) with prefix or id "stopme" found`)
}

// taskProcs lists the processes of an allocation's tasks: the supervisors
// found by the allocation's directory in their command line, and below
// them the tasks.
func (a *testAgent) taskProcs(allocID string) []agentproc.Proc {
	return agentproc.Matching(filepath.Join(a.dir, "alloc", allocID) + string(filepath.Separator))
}

// alive lists the pids of procs that still run (and are not zombies).
func alive(procs []agentproc.Proc) []int {
	var out []int
	for _, p := range procs {
		stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.Pid), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		if i := strings.LastIndexByte(s, ')'); i >= 0 && strings.HasPrefix(s[i+1:], " Z") {
			continue
		}
		out = append(out, p.Pid)
	}
	return out
}

const logsJob = `job "logs" {
  type = "batch"
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "echo to-stdout; echo to-stderr >&2; i=0; while :; do i=$((i+1)); echo tick-$i; sleep 0.2; done"]
      }
    }
  }
}`

// allocLogs reads a running task's output with `drover alloc logs`:
// stdout, -stderr, and -f, which keeps printing new lines until it is
// interrupted.
func (a *testAgent) allocLogs() {
	t := a.t
	a.mustCLI("job run", "-detach", writeFile(t, t.TempDir(), "logs.hcl", logsJob))
	alloc := a.waitRunning("logs")

	var stdout string
	a.waitFor("the task's first ticks", 10*time.Second, func() error {
		stdout = a.mustCLI("alloc logs", alloc.ID, "t")
		if !strings.Contains(stdout, "tick-2\n") {
			return fmt.Errorf("%w: stdout %q", errNotYet, stdout)
		}
		return nil
	})
	must.True(t, strings.HasPrefix(stdout, "to-stdout\ntick-1\n"), must.Sprintf("stdout: %q", stdout))
	must.StrNotContains(t, stdout, "to-stderr")
	stderr := a.mustCLI("alloc logs", "-stderr", alloc.ID, "t")
	must.Eq(t, "to-stderr\n", stderr)

	// -f prints what was written so far, then what comes: ticks past the
	// last one the plain read saw.
	seen := lastTick(stdout)
	follow := a.startCLI("alloc logs", "-f", alloc.ID, "t")
	lines := bufio.NewScanner(follow.stdout)
	var got []string
	for len(got) == 0 || lastTick(strings.Join(got, "\n")) < seen+2 {
		if !scanWithin(lines, 20*time.Second) {
			a.fatalf("alloc logs -f ended or stalled after %q: %v", got, lines.Err())
		}
		got = append(got, lines.Text())
	}
	must.Eq(t, "to-stdout", got[0])
	for i, line := range got[1:] {
		must.Eq(t, fmt.Sprintf("tick-%d", i+1), line, must.Sprint("each line once, in order"))
	}

	must.NoError(t, follow.cmd.Process.Signal(os.Interrupt))
	select {
	case <-follow.done:
	case <-time.After(10 * time.Second):
		t.Fatal("alloc logs -f still runs 10s after an interrupt")
	}
}

var tickLine = regexp.MustCompile(`(?m)^tick-(\d+)$`)

// lastTick is the number of the last tick line in s, 0 if none.
func lastTick(s string) int {
	m := tickLine.FindAllStringSubmatch(s, -1)
	if len(m) == 0 {
		return 0
	}
	n, _ := strconv.Atoi(m[len(m)-1][1])
	return n
}

// scanWithin scans the next line, giving up after timeout.
func scanWithin(s *bufio.Scanner, timeout time.Duration) bool {
	ok := make(chan bool, 1)
	go func() { ok <- s.Scan() }()
	select {
	case got := <-ok:
		return got
	case <-time.After(timeout):
		return false
	}
}

// runningCLI is a drover command still running, such as alloc logs -f.
type runningCLI struct {
	cmd    *exec.Cmd
	stdout io.Reader
	// stderr is read only once done is closed.
	stderr bytes.Buffer
	done   chan struct{}
}

// startCLI starts a drover command against this agent without waiting
// for it to end, as cli runs one; it is killed when the test ends if it
// still runs.
func (a *testAgent) startCLI(command string, args ...string) *runningCLI {
	a.t.Helper()
	full := append(strings.Fields(command), "-address="+a.Addr)
	full = append(full, args...)
	cmd := exec.Command(agentproc.Binary(a.t), full...)
	r := &runningCLI{cmd: cmd, done: make(chan struct{})}
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "DROVER_") || strings.HasPrefix(kv, "NOMAD_")
	})
	// An io.Pipe, not cmd.StdoutPipe: Wait may return while the test
	// still reads, and the reader then sees EOF instead of a closed file.
	stdout, w := io.Pipe()
	r.stdout = stdout
	cmd.Stdout, cmd.Stderr = w, &r.stderr
	must.NoError(a.t, cmd.Start())
	go func() {
		_ = cmd.Wait()
		w.Close()
		close(r.done)
	}()
	a.t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-r.done
	})
	return r
}
