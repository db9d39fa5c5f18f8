package rawexec

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/drover-io/drover/drivers"
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
}

func (s *taskState) result() *drivers.ExitResult {
	r := &drivers.ExitResult{ExitCode: s.ExitCode, Signal: s.Signal, ExitedAt: s.FinishedAt}
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
func writeJSONFile(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename this is a no-op
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	return nil
}

func readJSONFile(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode %s: %w", path, err)
	}
	return nil
}

func readState(stateDir string) (*taskState, error) {
	var s taskState
	if err := readJSONFile(filepath.Join(stateDir, stateFile), &s); err != nil {
		return nil, fmt.Errorf("read task state: %w", err)
	}
	return &s, nil
}
