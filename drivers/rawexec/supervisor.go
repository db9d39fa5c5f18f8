package rawexec

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/drover-io/drover/drivers/exec/isolate"
	"github.com/drover-io/drover/drivers/shared/logrotate"
	"github.com/drover-io/drover/internal/beneath"
)

// The supervisor is a small process, one per task, that owns the task: it
// starts the command in its own process group, copies its output into
// rotated log files, and records how it ended in the state file. It runs in
// its own session, so it outlives the agent that started it; a restarted
// agent finds it again through the task's driver state.
//
// It is the agent binary re-executed with a hidden subcommand; the runtime
// is tuned to keep its footprint small.

// The supervisor's extra file descriptors. statusFD is the pipe on which
// it reports to the driver whether the task started. The others are the
// directories it writes, opened by the driver beneath the allocation
// directory (see supervisorDirs): the task's state directory, and the log
// directories of its stdout and stderr, when it keeps them.
const (
	statusFD = 3 + iota
	stateDirFD
	stdoutDirFD
	stderrDirFD
)

const (
	// copyBufferSize is the size of each stream's copy buffer.
	copyBufferSize = 4 << 10
	// drainTimeout bounds the wait for a task's output pipes to close after
	// it exited: a process that left the task's group may hold them open.
	drainTimeout = 5 * time.Second
	// recordAttempts is how often the supervisor tries to record the exit.
	recordAttempts = 5
)

// SupervisorMain runs a task supervisor; args is the task's state
// directory, whose spec.json says what to run. It returns the process exit
// code. The agent exposes it as the hidden command `drover task-supervisor`.
func SupervisorMain(args []string) int {
	runtime.GOMAXPROCS(1)
	debug.SetGCPercent(25)

	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: task-supervisor <state-dir>")
		return 2
	}
	// The task must not inherit the status pipe (the driver would wait
	// for its end for as long as the task runs), nor the directories: a
	// directory open is a way out of wherever it is.
	for fd := statusFD; fd <= stderrDirFD; fd++ {
		syscall.CloseOnExec(fd)
	}
	status := os.NewFile(statusFD, "status")

	s, err := startSupervised(args[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "task supervisor: %v\n", err)
		report(status, startReport{Error: err.Error()})
		return 1
	}
	report(status, startReport{PID: s.state.PID, PGID: s.state.PGID, StartedAt: s.state.StartedAt})
	lowerPriority()
	// Hand what start-up used back to the OS: from here on the supervisor
	// only moves bytes. The collection comes first, as it reads much of the
	// binary's read-only data that the release then drops.
	debug.FreeOSMemory()
	releaseReadOnlyMappings()

	if err := s.waitAndRecord(); err != nil {
		fmt.Fprintf(os.Stderr, "task supervisor: %v\n", err)
		return 1
	}
	return 0
}

// report sends the start report to the driver. A driver that went away
// meanwhile does not matter: the state file has the same facts.
func report(status *os.File, r startReport) {
	_ = json.NewEncoder(status).Encode(r)
	_ = status.Close()
}

// supervised is a running task and its log plumbing.
type supervised struct {
	stateDir *beneath.Dir
	cmd      *exec.Cmd
	state    taskState
	// pgid is the task's process group once it runs, for the signal
	// forwarder.
	pgid atomic.Int64

	// isolation is the isolated task's cgroup and namespaces, or nil.
	isolation *isolate.Launch
	// cgroup is the raw task's cgroup, or nil.
	cgroup *isolate.Cgroup

	pipes   []*os.File // read ends of the task's output pipes
	logs    []*logrotate.Rotator
	logDirs []*beneath.Dir // the directories the logs are in
	copiers sync.WaitGroup
}

func startSupervised(stateDirPath string) (*supervised, error) {
	stateDir, err := beneath.FromFile(os.NewFile(stateDirFD, stateDirPath))
	if err != nil {
		return nil, fmt.Errorf("state directory (fd %d): %w", stateDirFD, err)
	}
	var spec supervisorSpec
	if err := readJSONFile(stateDir, specFile, &spec); err != nil {
		return nil, fmt.Errorf("read spec: %w", err)
	}
	s := &supervised{stateDir: stateDir}
	s.forwardSignals()

	stdout, err := s.output(stdoutDirFD, spec.StdoutPath, spec)
	if err != nil {
		s.closeLogs()
		return nil, fmt.Errorf("stdout: %w", err)
	}
	stderr, err := s.output(stderrDirFD, spec.StderrPath, spec)
	if err != nil {
		closeWriteEnds(stdout)
		s.closeLogs()
		return nil, fmt.Errorf("stderr: %w", err)
	}

	if spec.Isolation != nil {
		err = s.startIsolated(&spec, stdout, stderr)
	} else {
		s.cmd = &exec.Cmd{
			Path:   spec.Path,
			Args:   spec.Args,
			Env:    append([]string{}, spec.Env...), // never nil: nil would inherit ours
			Dir:    spec.Dir,
			Stdout: stdout,
			Stderr: stderr,
			// The task leads a session of its own, its process group with
			// it: a session is also a scheduling group (an autogroup) on
			// Linux, so the lower priority the supervisor takes stays with
			// it.
			SysProcAttr: &syscall.SysProcAttr{Setsid: true, Credential: spec.Credential.sys()},
		}
		err = s.startRaw(&spec)
	}
	// The task has its own copies of the write ends now; ours must go so
	// that the pipes report EOF when the task's side closes.
	closeWriteEnds(stdout, stderr)
	if err != nil {
		s.closeLogs()
		return nil, fmt.Errorf("start %s: %w", spec.Path, err)
	}

	pid := s.cmd.Process.Pid
	s.pgid.Store(int64(pid))
	s.state = taskState{
		State:         stateRunning,
		SupervisorPID: os.Getpid(),
		PID:           pid,
		PGID:          pid,
		StartedAt:     time.Now(),
	}
	if err := writeJSONFile(stateDir, stateFile, &s.state); err != nil {
		// Without a state file nobody could learn the task's fate: undo.
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = s.cmd.Wait()
		if s.isolation != nil {
			_, _ = s.isolation.Finish()
		}
		if s.cgroup != nil {
			_ = s.cgroup.Kill()
			_ = s.cgroup.Remove()
		}
		s.closeLogs()
		return nil, err
	}
	for i := range s.pipes {
		s.copiers.Add(1)
		go s.pump(s.logs[i], s.pipes[i])
	}
	return s, nil
}

// startRaw starts a raw_exec task, in a cgroup of its own where its spec
// names one. A cgroup that cannot be made costs the task nothing but
// the cgroup: it runs as it would without.
func (s *supervised) startRaw(spec *supervisorSpec) error {
	if spec.Cgroup == "" {
		return s.cmd.Start()
	}
	cg, err := isolate.CreateCgroup(isolate.CgroupSpec{Name: spec.Cgroup})
	if err != nil {
		fmt.Fprintf(os.Stderr, "task supervisor: running the task without a cgroup: %v\n", err)
		return s.cmd.Start()
	}
	if err := cg.StartIn(s.cmd); err != nil {
		_ = cg.Remove()
		return err
	}
	s.cgroup = cg
	return nil
}

// startIsolated starts the task in the namespaces and cgroup its spec's
// isolation asks for; a failure undoes the cgroup.
func (s *supervised) startIsolated(spec *supervisorSpec, stdout, stderr *os.File) error {
	launch, err := isolate.Prepare(spec.Isolation)
	if err != nil {
		return err
	}
	cmd, err := launch.Start(spec.Path, spec.Args, spec.Env, stdout, stderr)
	if err != nil {
		_, _ = launch.Finish()
		return err
	}
	s.cmd, s.isolation = cmd, launch
	return nil
}

// output returns the file the task writes a stream to: a pipe whose read
// end feeds a log rotator, or /dev/null when the stream has no log. The
// log files are base.N in the directory open at dirFD.
func (s *supervised) output(dirFD int, base string, spec supervisorSpec) (*os.File, error) {
	if base == "" {
		return os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	}
	dir, err := beneath.FromFile(os.NewFile(uintptr(dirFD), filepath.Dir(base)))
	if err != nil {
		return nil, fmt.Errorf("log directory (fd %d): %w", dirFD, err)
	}
	s.logDirs = append(s.logDirs, dir)
	log, err := logrotate.New(dir, filepath.Base(base), spec.LogMaxFiles, spec.LogMaxFileBytes)
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		log.Close()
		return nil, fmt.Errorf("create pipe: %w", err)
	}
	s.logs = append(s.logs, log)
	s.pipes = append(s.pipes, r)
	return w, nil
}

func closeWriteEnds(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}

// forwardSignals passes termination signals sent to the supervisor on to
// the task's group, and survives a hangup. Handling the signals rather than
// ignoring them matters: ignored signals would stay ignored in the task.
func (s *supervised) forwardSignals() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		for sig := range ch {
			pgid := int(s.pgid.Load())
			if sig == syscall.SIGHUP || pgid == 0 {
				continue
			}
			_ = syscall.Kill(-pgid, sig.(syscall.Signal))
		}
	}()
}

// pump moves a stream from the task into its log until the task closes
// it. A failed write (a full disk) loses that chunk, not the stream: the
// task must never block on a pipe nobody reads.
func (s *supervised) pump(dst *logrotate.Rotator, src *os.File) {
	defer s.copiers.Done()
	buf := make([]byte, copyBufferSize)
	reported := false
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil && !reported {
				fmt.Fprintf(os.Stderr, "task supervisor: %v\n", werr)
				reported = true
			}
		}
		if err != nil {
			return
		}
	}
}

// waitAndRecord waits for the task to exit, cleans up its process group,
// flushes its output and records the result.
func (s *supervised) waitAndRecord() error {
	awaitExit(s.state.PID)
	waitErr := s.cmd.Wait()
	finished := time.Now()

	// Whatever the task left running in its group goes with it, and in
	// its cgroup, for an isolated task.
	_ = syscall.Kill(-s.state.PGID, syscall.SIGKILL)
	if s.isolation != nil {
		oom, err := s.isolation.Finish()
		if err != nil {
			fmt.Fprintf(os.Stderr, "task supervisor: %v\n", err)
		}
		s.state.OOMKilled = oom
	}
	if s.cgroup != nil {
		err := s.cgroup.Kill()
		if err == nil {
			err = s.cgroup.Remove()
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "task supervisor: %v\n", err)
		}
	}
	s.drain()

	s.state.State = stateExited
	s.state.FinishedAt = finished
	if ps := s.cmd.ProcessState; ps != nil {
		s.state.ExitCode, s.state.Signal = exitStatus(ps)
	} else {
		s.state.Error = fmt.Sprintf("wait for task: %v", waitErr)
	}

	var err error
	for attempt := range recordAttempts {
		if err = writeJSONFile(s.stateDir, stateFile, &s.state); err == nil {
			return nil
		}
		time.Sleep(time.Duration(attempt+1) * time.Second)
	}
	return fmt.Errorf("record exit status: %w", err)
}

// drain waits for the output copiers to finish, closing the pipes if the
// task's leftovers keep them open too long.
func (s *supervised) drain() {
	done := make(chan struct{})
	go func() {
		s.copiers.Wait()
		close(done)
	}()
	timer := time.NewTimer(drainTimeout)
	select {
	case <-done:
		timer.Stop()
	case <-timer.C:
		for _, p := range s.pipes {
			p.Close()
		}
		<-done
	}
	s.closeLogs()
}

func (s *supervised) closeLogs() {
	for _, l := range s.logs {
		if err := l.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			fmt.Fprintf(os.Stderr, "task supervisor: close log: %v\n", err)
		}
	}
	for _, p := range s.pipes {
		p.Close()
	}
	for _, d := range s.logDirs {
		d.Close()
	}
}

// exitStatus returns the exit code and terminating signal; a task killed
// by a signal gets the code a shell would report, 128 + signal.
func exitStatus(ps *os.ProcessState) (code, sig int) {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), int(ws.Signal())
	}
	return ps.ExitCode(), 0
}
