package rawexec

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/exec/isolate"
	"github.com/drover-io/drover/internal/beneath"
)

// A task's state directory holds the files the driver and the task's
// supervisor share. It outlives both the agent and the supervisor.
const (
	specFile          = "spec.json"
	stateFile         = "state.json"
	supervisorLogFile = "supervisor.log"
)

// supervisorSpec is what the driver asks a supervisor to run.
type supervisorSpec struct {
	// Path is the executable; Args is the whole argv, Args[0] included.
	Path string   `json:"path"`
	Args []string `json:"args"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir"`
	// Credential, when set, is the user the task runs as.
	Credential *credential `json:"credential,omitempty"`

	// StdoutPath and StderrPath are log base paths; empty discards the
	// stream.
	StdoutPath      string `json:"stdout_path"`
	StderrPath      string `json:"stderr_path"`
	LogMaxFiles     int    `json:"log_max_files"`
	LogMaxFileBytes int64  `json:"log_max_file_bytes"`

	// Cgroup, when set, names a cgroup (without limits) the supervisor
	// runs the task in, so that a kill at its end reaches every process
	// it forked, also those that left its process group.
	Cgroup string `json:"cgroup,omitempty"`

	// Isolation, when set, runs the task isolated as the exec driver
	// does (see package isolate); Path is then looked up inside the
	// task's root and Credential is unused.
	Isolation *isolate.Spec `json:"isolation,omitempty"`
}

// credential is a user and group to run a task as.
type credential struct {
	UID uint32 `json:"uid"`
	GID uint32 `json:"gid"`
}

func (c *credential) sys() *syscall.Credential {
	if c == nil {
		return nil
	}
	return &syscall.Credential{Uid: c.UID, Gid: c.GID}
}

// Supervisor-reported task states.
const (
	stateRunning = "running"
	stateExited  = "exited"
)

// taskState is the supervisor's record of its task: the source of truth
// about how the task ended, whoever asks and whenever.
type taskState struct {
	State         string    `json:"state"`
	SupervisorPID int       `json:"supervisor_pid"`
	PID           int       `json:"pid"`
	PGID          int       `json:"pgid"`
	StartedAt     time.Time `json:"started_at"`

	// Set once State is stateExited.
	ExitCode   int       `json:"exit_code"`
	Signal     int       `json:"signal"`
	FinishedAt time.Time `json:"finished_at,omitzero"`
	// Error is set when the supervisor could not learn how the task ended.
	Error string `json:"error,omitempty"`
	// OOMKilled is set when the kernel's OOM killer ended an isolated
	// task for going over its memory limit.
	OOMKilled bool `json:"oom_killed,omitempty"`
}

func (s *taskState) result() *drivers.ExitResult {
	r := &drivers.ExitResult{ExitCode: s.ExitCode, Signal: s.Signal, OOMKilled: s.OOMKilled, ExitedAt: s.FinishedAt}
	if s.Error != "" {
		r.Err = errors.New(s.Error)
	}
	return r
}

// startReport is the supervisor's one message to the driver that started
// it, on the status pipe: the task started, or why it did not.
type startReport struct {
	Error     string    `json:"error,omitempty"`
	PID       int       `json:"pid,omitempty"`
	PGID      int       `json:"pgid,omitempty"`
	StartedAt time.Time `json:"started_at,omitzero"`
}

// writeJSONFile replaces path atomically: readers see the old or the new
// content, never a partial file, also when the agent or the supervisor
// dies mid-write. It does not fsync: the file only has to outlive
// processes, not the machine. After a machine crash every task is gone
// anyway, and a record still saying "running" is reported as a lost task,
// which is the truth. Skipping the two syncs keeps them off the path from
// a task's exit (or a deadline's kill) to the exit being seen.
//
// The state directory is in the task directory, which the task may write
// (it runs as the user the directory was given to): the file is made and
// renamed through the open directory, following no link (see package
// beneath).
func writeJSONFile(dir *beneath.Dir, name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", name, err)
	}
	tmp, tmpName, err := dir.CreateTemp(name + ".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer dir.Remove(tmpName) // after a successful rename this is a no-op
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := dir.Rename(tmpName, name); err != nil {
		return fmt.Errorf("replace %s: %w", name, err)
	}
	return nil
}

// maxStateFileSize bounds what is read of a state file: the driver's own
// are a few hundred bytes, and one a task swapped in must not exhaust the
// agent's memory.
const maxStateFileSize = 1 << 20

func readJSONFile(dir *beneath.Dir, name string, v any) error {
	f, err := dir.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxStateFileSize))
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode %s: %w", name, err)
	}
	return nil
}

func readState(dir *beneath.Dir) (*taskState, error) {
	var s taskState
	if err := readJSONFile(dir, stateFile, &s); err != nil {
		return nil, fmt.Errorf("read task state: %w", err)
	}
	return &s, nil
}

// readStateAt reads the state file of the state directory at path, in
// cfg's task directory, opened beneath the allocation's directory.
func readStateAt(cfg *drivers.TaskConfig, path string) (*taskState, error) {
	dir, err := cfg.OpenInAlloc(path)
	if err != nil {
		return nil, fmt.Errorf("read task state: %w", err)
	}
	defer dir.Close()
	return readState(dir)
}
