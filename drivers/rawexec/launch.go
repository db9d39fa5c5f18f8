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

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/internal/beneath"
	"github.com/drover-io/drover/internal/netns"
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

// supervisorDirs are the directories a supervisor writes, opened beneath
// the allocation directory by the driver and handed to the supervisor
// open (fds stateDirFD, stdoutDirFD and stderrDirFD): it never resolves a
// path the task could redirect.
type supervisorDirs struct {
	state          *beneath.Dir
	stdout, stderr *beneath.Dir // nil for a stream without a log
}

// openSupervisorDirs makes the state directory name in parent and opens
// it, and opens (making them if need be) the task's log directories.
func openSupervisorDirs(cfg *drivers.TaskConfig, parent *beneath.Dir, name string) (*supervisorDirs, error) {
	state, err := parent.MkdirAll(name, 0o700)
	if err != nil {
		return nil, fmt.Errorf("create state directory: %w", err)
	}
	dirs := &supervisorDirs{state: state}
	for _, log := range []struct {
		path   string
		stream string
		dir    **beneath.Dir
	}{{cfg.StdoutPath, "stdout", &dirs.stdout}, {cfg.StderrPath, "stderr", &dirs.stderr}} {
		if log.path == "" {
			continue
		}
		if *log.dir, err = cfg.MkdirInAlloc(filepath.Dir(log.path), 0o755); err != nil {
			dirs.close()
			return nil, fmt.Errorf("%s: create log directory: %w", log.stream, err)
		}
	}
	return dirs, nil
}

// files are the directories as the supervisor's extra files, from fd
// stateDirFD on; a nil one is closed in the supervisor.
func (d *supervisorDirs) files() []*os.File {
	files := []*os.File{d.state.File(), nil, nil}
	for i, dir := range []*beneath.Dir{d.stdout, d.stderr} {
		if dir != nil {
			files[1+i] = dir.File()
		}
	}
	return files
}

func (d *supervisorDirs) close() {
	for _, dir := range []*beneath.Dir{d.state, d.stdout, d.stderr} {
		if dir != nil {
			dir.Close()
		}
	}
}

// startSupervisorIn is startSupervisor in the network namespace pinned at
// netnsPath, where the supervisor and the task it starts live from their
// first instruction; an empty path is the agent's own namespace.
func startSupervisorIn(netnsPath string, command []string, stateDir string, dirs *supervisorDirs) (*supervisorProcess, error) {
	if netnsPath == "" {
		return startSupervisor(command, stateDir, dirs)
	}
	var sup *supervisorProcess
	err := netns.Do(netnsPath, func() error {
		var err error
		sup, err = startSupervisor(command, stateDir, dirs)
		return err
	})
	return sup, err
}

// startSupervisor starts a supervisor for the task described in stateDir
// and returns once the task has started, or with the reason it did not.
// The supervisor gets its own session, so it neither shares the agent's
// process group nor has a controlling terminal: signals aimed at the agent
// and the agent's death leave it running.
func startSupervisor(command []string, stateDir string, dirs *supervisorDirs) (*supervisorProcess, error) {
	if len(command) == 0 {
		return nil, errors.New("no supervisor command")
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create status pipe: %w", err)
	}
	defer statusR.Close()
	logFile, err := dirs.state.OpenFile(supervisorLogFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		statusW.Close()
		return nil, fmt.Errorf("open supervisor log: %w", err)
	}

	// The state directory's path is the supervisor's last argument, by
	// which a later agent knows it (see isSupervisor); the supervisor
	// itself uses the directory it is handed open.
	args := append(append([]string{}, command[1:]...), stateDir)
	cmd := exec.Command(command[0], args...)
	cmd.Env = supervisorEnviron()
	cmd.Dir = "/"
	cmd.Stderr = logFile
	// fd 3 (statusFD), then the directories from stateDirFD on.
	cmd.ExtraFiles = append([]*os.File{statusW}, dirs.files()...)
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
		abandonSupervisor(cmd, dirs.state)
		return nil, fmt.Errorf("%w%s", err, supervisorLogTail(dirs.state))
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

func abandonSupervisor(cmd *exec.Cmd, stateDir *beneath.Dir) {
	if st, err := readState(stateDir); err == nil && st.PGID > 0 {
		_ = syscall.Kill(-st.PGID, syscall.SIGKILL)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
}

// supervisorLogTail returns the end of the supervisor's own log, for error
// messages.
func supervisorLogTail(stateDir *beneath.Dir) string {
	const max = 1 << 10
	f, err := stateDir.OpenFile(supervisorLogFile, os.O_RDONLY, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > max {
		_, _ = f.Seek(-max, io.SeekEnd)
	}
	b, err := io.ReadAll(io.LimitReader(f, max))
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return ""
	}
	return ": supervisor log: " + string(bytes.TrimSpace(b))
}
