package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/e2e/agentproc"
	"github.com/drover-io/drover/internal/waitfor"
)

// Bounds of the harness's waits: generous, as a wait that runs out is a
// failure, not a measurement.
const (
	readyTimeout = time.Minute
	pollGap      = 25 * time.Millisecond
)

// testAgent is one agent process a test drives, with its API client.
type testAgent struct {
	*agentproc.Agent
	t   *testing.T
	api *api.Client
	// dir is the test's directory: config, data dir, log, job files.
	dir string
	// env is added to the environment of every CLI command, such as the
	// token and TLS settings of a secure cluster.
	env []string
}

// skipShort skips an e2e test under -short: it runs real agents in real
// time.
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("e2e: runs a real agent in real time")
	}
}

// startDevAgent starts `drover agent -dev` on free loopback ports and waits
// until its node is ready. Its alloc dir is in the test's directory, so
// that the task supervisors it leaves behind are found by their command
// line and killed when the test ends.
func startDevAgent(t *testing.T) *testAgent {
	t.Helper()
	a, dir := startDevProcess(t, "")
	return readyAgent(t, a, dir)
}

// startDevProcess starts `drover agent -dev` as startDevAgent does, with
// config added to its configuration, and does not wait for it. It
// returns the agent and the test's directory.
func startDevProcess(t *testing.T, config string) (*agentproc.Agent, string) {
	t.Helper()
	skipShort(t)
	dir := t.TempDir()
	allocDir := filepath.Join(dir, "alloc")
	path := writeFile(t, dir, "agent.hcl", fmt.Sprintf("client {\n  alloc_dir = %q\n}\n%s", allocDir, config))
	a := agentproc.Start(t, agentproc.Options{
		Dir:      dir,
		Args:     []string{"-dev", "-config", path},
		TaskPath: allocDir + string(filepath.Separator),
	})
	return a, dir
}

// startDataDirAgent starts a non-dev agent on dir's data dir, on the given
// ports (free ones when zero): started again with the same dir and ports,
// it is the same agent after a restart.
func startDataDirAgent(t *testing.T, dir string, httpPort, rpcPort int) *testAgent {
	t.Helper()
	skipShort(t)
	dataDir := filepath.Join(dir, "data")
	config := writeFile(t, dir, "agent.hcl", agentproc.ServerClientConfig(dataDir))
	a := agentproc.Start(t, agentproc.Options{
		Dir:      dir,
		HTTPPort: httpPort,
		RPCPort:  rpcPort,
		Args:     []string{"-config", config},
		TaskPath: filepath.Join(dataDir, "alloc") + string(filepath.Separator),
	})
	return readyAgent(t, a, dir)
}

func readyAgent(t *testing.T, a *agentproc.Agent, dir string) *testAgent {
	t.Helper()
	a.WaitReady(readyTimeout)
	return &testAgent{Agent: a, t: t, api: a.API(), dir: dir}
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	must.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

// fatalf fails the test; agentproc adds the agent's log to a failed test.
func (a *testAgent) fatalf(format string, args ...any) {
	a.t.Helper()
	a.t.Fatalf(format, args...)
}

// parseJob turns a jobspec into a job through the agent's parse endpoint.
func (a *testAgent) parseJob(jobHCL string) *api.Job {
	a.t.Helper()
	job, err := a.api.Jobs().ParseHCL(jobHCL, true)
	if err != nil {
		a.fatalf("parse jobspec: %v\n%s", err, jobHCL)
	}
	return job
}

// register registers job and returns its evaluation's ID.
func (a *testAgent) register(job *api.Job) string {
	a.t.Helper()
	resp, _, err := a.api.Jobs().Register(job, nil)
	if err != nil {
		a.fatalf("register job %q: %v", deref(job.ID), err)
	}
	return resp.EvalID
}

// runJob parses and registers a jobspec, returning the job's ID.
func (a *testAgent) runJob(jobHCL string) string {
	a.t.Helper()
	job := a.parseJob(jobHCL)
	a.register(job)
	return deref(job.ID)
}

// errNotYet marks a poll whose condition does not hold yet, with why.
var errNotYet = errors.New("not yet")

// waitFor polls cond until it returns nil, failing the test after timeout
// with the last reason cond gave.
func (a *testAgent) waitFor(what string, timeout time.Duration, cond func() error) {
	a.t.Helper()
	waitfor.NoError(a.t, what, func() error {
		err := cond()
		if err != nil && a.Exited() {
			a.fatalf("agent exited while waiting for %s (last: %v)", what, err)
		}
		return err
	}, wait.Timeout(timeout), wait.Gap(pollGap))
}

// waitLeader waits until the agent names a leader.
func (a *testAgent) waitLeader() {
	a.t.Helper()
	a.waitFor("a leader", readyTimeout, func() error {
		leader, err := a.api.Status().Leader()
		if err == nil && leader == "" {
			err = fmt.Errorf("%w: no leader", errNotYet)
		}
		return err
	})
}

// jobAllocs lists the allocations of the job as it now exists (not those
// of an earlier run of the same ID that was purged).
func (a *testAgent) jobAllocs(jobID string) ([]*api.AllocationListStub, error) {
	allocs, _, err := a.api.Jobs().Allocations(jobID, false, nil)
	return allocs, err
}

// waitRunning waits up to 30 s for the job's one allocation to run, and
// returns it in full.
func (a *testAgent) waitRunning(jobID string) *api.Allocation {
	a.t.Helper()
	return a.waitAllocs(jobID, 1, "running", 30*time.Second, clientStatus(api.AllocClientStatusRunning))[0]
}

// waitAllocs waits until the job has n allocations and each satisfies
// cond, and returns them in full.
func (a *testAgent) waitAllocs(jobID string, n int, what string, timeout time.Duration, cond func(*api.Allocation) error) []*api.Allocation {
	a.t.Helper()
	var out []*api.Allocation
	a.waitFor(fmt.Sprintf("%d allocation(s) of %s %s", n, jobID, what), timeout, func() error {
		stubs, err := a.jobAllocs(jobID)
		if err != nil {
			return err
		}
		if len(stubs) != n {
			return fmt.Errorf("%w: %d allocations", errNotYet, len(stubs))
		}
		out = out[:0]
		for _, s := range stubs {
			alloc, _, err := a.api.Allocations().Info(s.ID, nil)
			if err != nil {
				return err
			}
			if err := cond(alloc); err != nil {
				return fmt.Errorf("alloc %s: %w", s.ID, err)
			}
			out = append(out, alloc)
		}
		return nil
	})
	return out
}

// waitAlloc waits until the allocation satisfies cond and returns it.
func (a *testAgent) waitAlloc(id, what string, timeout time.Duration, cond func(*api.Allocation) error) *api.Allocation {
	a.t.Helper()
	var out *api.Allocation
	a.waitFor(fmt.Sprintf("allocation %s %s", id, what), timeout, func() error {
		alloc, _, err := a.api.Allocations().Info(id, nil)
		if err != nil {
			return err
		}
		if err := cond(alloc); err != nil {
			return err
		}
		out = alloc
		return nil
	})
	return out
}

// waitJobStatus waits until the job's status is want.
func (a *testAgent) waitJobStatus(jobID, want string, timeout time.Duration) {
	a.t.Helper()
	a.waitFor(fmt.Sprintf("job %s %s", jobID, want), timeout, func() error {
		job, _, err := a.api.Jobs().Info(jobID, nil)
		if err != nil {
			return err
		}
		if got := deref(job.Status); got != want {
			return fmt.Errorf("%w: status %s", errNotYet, got)
		}
		return nil
	})
}

// clientStatus is an allocation condition: its client status is want.
func clientStatus(want string) func(*api.Allocation) error {
	return func(alloc *api.Allocation) error {
		if alloc.ClientStatus != want {
			return fmt.Errorf("%w: client status %s", errNotYet, alloc.ClientStatus)
		}
		return nil
	}
}

// cli runs the drover binary as a user would, against this agent:
// command holds the command words ("alloc status"), args the rest. It
// returns the combined output and the exit code.
func (a *testAgent) cli(command string, args ...string) (string, int) {
	a.t.Helper()
	return a.cliWithEnv(nil, command, args...)
}

// cliWithEnv is cli with env added to the environment, which otherwise
// holds no DROVER_* or NOMAD_* variable.
func (a *testAgent) cliWithEnv(env []string, command string, args ...string) (string, int) {
	a.t.Helper()
	full := append(strings.Fields(command), "-address="+a.Addr)
	full = append(full, args...)
	return runDrover(a.t, "", append(slices.Clone(a.env), env...), full...)
}

// runDrover runs the binary with args in dir (the test's own when empty)
// and an environment that holds no DROVER_* or NOMAD_* variable but
// those of env. It returns the combined output and the exit code.
func runDrover(t testing.TB, dir string, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(agentproc.Binary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "DROVER_") || strings.HasPrefix(kv, "NOMAD_")
	}), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return out.String(), exit.ExitCode()
	case err != nil:
		t.Fatalf("run drover %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), 0
}

// mustCLI is cli for a command that must succeed.
func (a *testAgent) mustCLI(command string, args ...string) string {
	a.t.Helper()
	out, code := a.cli(command, args...)
	if code != 0 {
		a.fatalf("drover %s %s: exit %d\n%s", command, strings.Join(args, " "), code, out)
	}
	return out
}

// sleepUntil holds the test until t, a moment in an allocation's life
// that the scenario is about (6 s into its budget, past its old deadline).
// The agent is another process: real time is the only time there is, and
// what the test checks then is a state at that moment, not a condition
// to wait for.
func sleepUntil(t time.Time) { time.Sleep(time.Until(t)) }

// unixTime is a wire time in Unix nanoseconds as a time.Time.
func unixTime(ns int64) time.Time { return time.Unix(0, ns) }

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// sleepJob is a job of one raw_exec task, "t" in group "g", that sleeps
// for seconds; groupLimit, unless empty, is the group's max_run_duration.
func sleepJob(id, jobType, groupLimit string, seconds int) string {
	limit := ""
	if groupLimit != "" {
		limit = fmt.Sprintf("\n    max_run_duration = %q", groupLimit)
	}
	return fmt.Sprintf(`job %q {
  type = %q
  group "g" {%s
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/sleep" args = ["%d"] }
    }
  }
}`, id, jobType, limit, seconds)
}
