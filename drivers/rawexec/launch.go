package rawexec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// startTimeout bounds the wait for a supervisor to report that its task
// started.
const startTimeout = 30 * time.Second

// supervisorEnviron is the agent's environment with the supervisor's Go
// runtime tuned from its first instruction on: one P, a tight GC, and no
// allocation profiling. SupervisorMain repeats what it can for supervisors
// started some other way. The task's own environment is set separately.
func supervisorEnviron() []string {
	godebug := "memprofilerate=0"
	if v := os.Getenv("GODEBUG"); v != "" {
		godebug = v + "," + godebug
	}
	return append(os.Environ(), "GOMAXPROCS=1", "GOGC=25", "GODEBUG="+godebug)
}

// supervisorProcess is a supervisor this agent started: its child.
type supervisorProcess struct {
	cmd    *exec.Cmd
	report startReport
}

// startSupervisor starts a supervisor for the task described in stateDir
// and returns once the task has started, or with the reason it did not.
// The supervisor gets its own session, so it neither shares the agent's
// process group nor has a controlling terminal: signals aimed at the agent
// and the agent's death leave it running.
func startSupervisor(command []string, stateDir string) (*supervisorProcess, error) {
	if len(command) == 0 {
		return nil, errors.New("no supervisor command")
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create status pipe: %w", err)
	}
	defer statusR.Close()
	logFile, err := os.OpenFile(filepath.Join(stateDir, supervisorLogFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		statusW.Close()
		return nil, fmt.Errorf("open supervisor log: %w", err)
	}

	args := append(append([]string{}, command[1:]...), stateDir)
	cmd := exec.Command(command[0], args...)
	cmd.Env = supervisorEnviron()
	cmd.Dir = stateDir
	cmd.Stderr = logFile
	cmd.ExtraFiles = []*os.File{statusW} // fd 3, statusFD
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	statusW.Close()
	logFile.Close()
	if err != nil {
		return nil, fmt.Errorf("start supervisor %s: %w", command[0], err)
	}

	report, err := readStartReport(statusR)
	if err != nil {
		// The supervisor is hung or broken: make sure neither it nor a task
		// it may have started lives on untracked.
		abandonSupervisor(cmd, stateDir)
		return nil, fmt.Errorf("%w%s", err, supervisorLogTail(stateDir))
	}
	if report.Error != "" {
		_ = cmd.Wait()
		return nil, errors.New(report.Error)
	}
	return &supervisorProcess{cmd: cmd, report: *report}, nil
}

func readStartReport(r *os.File) (*startReport, error) {
	if err := r.SetReadDeadline(time.Now().Add(startTimeout)); err != nil {
		return nil, fmt.Errorf("status pipe: %w", err)
	}
	var rep startReport
	err := json.NewDecoder(io.LimitReader(r, 64<<10)).Decode(&rep)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, fmt.Errorf("supervisor did not report within %s", startTimeout)
	case errors.Is(err, io.EOF):
		return nil, errors.New("supervisor exited without starting the task")
	case err != nil:
		return nil, fmt.Errorf("read supervisor report: %w", err)
	}
	return &rep, nil
}

func abandonSupervisor(cmd *exec.Cmd, stateDir string) {
	if st, err := readState(stateDir); err == nil && st.PGID > 0 {
		_ = syscall.Kill(-st.PGID, syscall.SIGKILL)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
}

// supervisorLogTail returns the end of the supervisor's own log, for error
// messages.
func supervisorLogTail(stateDir string) string {
	b, err := os.ReadFile(filepath.Join(stateDir, supervisorLogFile))
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return ""
	}
	const max = 1 << 10
	if len(b) > max {
		b = b[len(b)-max:]
	}
	return ": supervisor log: " + string(bytes.TrimSpace(b))
}
