package rawexec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/internal/drivertest"
	"github.com/drover-io/drover/internal/beneath"
	"github.com/drover-io/drover/internal/waitfor"
)

// exitTimeout bounds waits on real processes on a loaded machine: a
// supervisor re-execs the test binary, which the race detector slows.
const exitTimeout = 60 * time.Second

func newTestDriver(t *testing.T) *Driver {
	t.Helper()
	return New(hclog.New(&hclog.LoggerOptions{Output: hclog.DefaultOutput, Level: hclog.Debug}), testDriverConfig())
}

// newShellTask is a task running `sh -c script` in a fresh alloc layout.
func newShellTask(t *testing.T, script string) *drivers.TaskConfig {
	t.Helper()
	allocRoot := t.TempDir()
	cfg := &drivers.TaskConfig{
		ID:         "alloc1/web",
		AllocID:    "alloc1",
		Name:       "web",
		Driver:     DriverName,
		Config:     map[string]any{"command": "/bin/sh", "args": []any{"-c", script}},
		Env:        map[string]string{"PATH": os.Getenv("PATH"), "GREETING": "hi"},
		AllocDir:   filepath.Join(allocRoot, "alloc"),
		TaskDir:    filepath.Join(allocRoot, "web"),
		StdoutPath: filepath.Join(allocRoot, "alloc", "logs", "web.stdout"),
		StderrPath: filepath.Join(allocRoot, "alloc", "logs", "web.stderr"),
	}
	for _, dir := range []string{filepath.Dir(cfg.StdoutPath), cfg.TaskDir} {
		must.NoError(t, os.MkdirAll(dir, 0o755))
	}
	return cfg
}

// startTask starts the task and makes sure none of its processes outlive
// the test.
func startTask(t *testing.T, d *Driver, cfg *drivers.TaskConfig) *drivers.TaskHandle {
	t.Helper()
	h, err := d.StartTask(cfg)
	must.NoError(t, err)
	cleanupTask(t, h)
	return h
}

// cleanupTask kills whatever is left of the task's process group, and its
// supervisor if it still runs, at the end of the test.
func cleanupTask(t *testing.T, h *drivers.TaskHandle) {
	var ds driverState
	must.NoError(t, h.GetDriverState(&ds))
	t.Cleanup(func() {
		if len(groupMembers(ds.PGID)) > 0 {
			_ = syscall.Kill(-ds.PGID, syscall.SIGKILL)
		}
		if isSupervisor(ds.SupervisorPID, ds.StateDir) {
			_ = syscall.Kill(ds.SupervisorPID, syscall.SIGKILL)
		}
	})
}

// waitResult waits for the task's exit result.
func waitResult(t *testing.T, d *Driver, id string) *drivers.ExitResult {
	t.Helper()
	return drivertest.WaitResult(t, d, id, exitTimeout)
}

// groupMembers returns the pids of the live processes in process group
// pgid (zombies excluded).
func groupMembers(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// Fields after the parenthesised command: state, ppid, pgrp, ...
		rest := b[bytes.LastIndexByte(b, ')')+2:]
		fields := strings.Fields(string(rest))
		if len(fields) < 3 || fields[0] == "Z" {
			continue
		}
		if g, _ := strconv.Atoi(fields[2]); g == pgid {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitForGroupSize waits until the task's group has n live processes.
func waitForGroupSize(t *testing.T, pgid, n int) {
	t.Helper()
	waitfor.True(t, fmt.Sprintf("process group %d to have %d members", pgid, n),
		func() bool { return len(groupMembers(pgid)) == n }, wait.Timeout(exitTimeout))
}

// waitForGroupCommand waits until n of the group's live processes run the
// named command, that is, have finished exec'ing it.
func waitForGroupCommand(t *testing.T, pgid int, command string, n int) {
	t.Helper()
	running := func() int {
		count := 0
		for _, pid := range groupMembers(pgid) {
			comm, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
			if err == nil && strings.TrimSpace(string(comm)) == command {
				count++
			}
		}
		return count
	}
	waitfor.True(t, fmt.Sprintf("process group %d to have %d %s processes", pgid, n, command),
		func() bool { return running() == n }, wait.Timeout(exitTimeout))
}

// withoutExitTime returns the result with its exit time cleared, once it
// has checked that the supervisor recorded one.
func withoutExitTime(t *testing.T, res *drivers.ExitResult) drivers.ExitResult {
	t.Helper()
	must.False(t, res.ExitedAt.IsZero(), must.Sprint("the result lacks the exit time"))
	r := *res
	r.ExitedAt = time.Time{}
	return r
}

func taskDriverState(t *testing.T, h *drivers.TaskHandle) driverState {
	t.Helper()
	var ds driverState
	must.NoError(t, h.GetDriverState(&ds))
	return ds
}

func readLog(t *testing.T, base string) string {
	t.Helper()
	b, err := os.ReadFile(base + ".0")
	must.NoError(t, err)
	return string(b)
}

// persistHandle round-trips the handle through JSON, as the client's state
// store does.
func persistHandle(t *testing.T, h *drivers.TaskHandle) *drivers.TaskHandle {
	t.Helper()
	b, err := json.Marshal(h)
	must.NoError(t, err)
	var out drivers.TaskHandle
	must.NoError(t, json.Unmarshal(b, &out))
	return &out
}

// startInThrowawayAgent starts the task from a separate agent process, then
// SIGKILLs that agent: the task's supervisor is orphaned, as after an agent
// crash. It returns the handle the dead agent persisted.
func startInThrowawayAgent(t *testing.T, cfg *drivers.TaskConfig) *drivers.TaskHandle {
	t.Helper()
	cfgPath := filepath.Join(t.TempDir(), "task.json")
	b, err := json.Marshal(cfg)
	must.NoError(t, err)
	must.NoError(t, os.WriteFile(cfgPath, b, 0o600))

	exe, err := os.Executable()
	must.NoError(t, err)
	agent := exec.Command(exe)
	agent.Env = append(os.Environ(), agentTestEnv+"="+cfgPath)
	agent.Stderr = os.Stderr
	must.NoError(t, agent.Start())
	agentDone := make(chan struct{})
	go func() { _ = agent.Wait(); close(agentDone) }()

	var h drivers.TaskHandle
	waitfor.NoError(t, "the throwaway agent to write the handle",
		func() error { return readJSONPath(cfgPath+".handle", &h) }, wait.Timeout(exitTimeout))
	cleanupTask(t, &h)

	must.NoError(t, agent.Process.Signal(syscall.SIGKILL))
	<-agentDone
	return &h
}

// signalPending reports whether sig waits to be delivered to the process
// pid, as /proc/<pid>/status shows it (SigPnd for its main thread, ShdPnd
// for the whole process). A process that is gone has nothing pending.
func signalPending(pid int, sig syscall.Signal) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	bit := uint64(1) << (sig - 1)
	for line := range strings.SplitSeq(string(b), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok || (name != "SigPnd" && name != "ShdPnd") {
			continue
		}
		mask, err := strconv.ParseUint(strings.TrimSpace(value), 16, 64)
		if err == nil && mask&bit != 0 {
			return true
		}
	}
	return false
}

// writeJSONPath and readJSONPath are writeJSONFile and readJSONFile of a
// file named by its path, in a directory of the test's.
func writeJSONPath(path string, v any) error {
	dir, err := beneath.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer dir.Close()
	return writeJSONFile(dir, filepath.Base(path), v)
}

func readJSONPath(path string, v any) error {
	dir, err := beneath.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer dir.Close()
	return readJSONFile(dir, filepath.Base(path), v)
}

// readStatePath reads the state file of the state directory at path.
func readStatePath(path string) (*taskState, error) {
	var s taskState
	return &s, readJSONPath(filepath.Join(path, stateFile), &s)
}
