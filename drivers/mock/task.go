package mock

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/shared/logrotate"
)

// task is one mock task run. Its channels are made by the call that
// creates it, so a task started inside a testing/synctest bubble belongs to
// that bubble.
type task struct {
	// id and name are the task's; the rest of its config (the env above
	// all, a map per task) is the task runner's to keep, or not.
	id, name string
	conf     *taskConfig

	// starting is done when StartTask returns; cancelStart, made only
	// for a task with a start block, asks a blocked StartTask to give up.
	// Neither is a channel for every task: a running task keeps its
	// struct for hours.
	starting        sync.WaitGroup
	cancelStart     chan struct{}
	cancelStartOnce sync.Once

	// done is closed once exit is set.
	done chan struct{}
	exit drivers.Exit

	mu          sync.Mutex
	state       string
	startedAt   time.Time
	completedAt time.Time
	result      *drivers.ExitResult
	signals     []string
	// runTimer ends the run after run_for; graceTimer ends it kill_after
	// after the first terminating signal. Each calls finish on a goroutine
	// of its own when it fires: a running task keeps none.
	runTimer   *time.Timer
	graceTimer *time.Timer
}

// stateStarting is a task whose StartTask has not returned yet.
const stateStarting = "starting"

func newTask(cfg *drivers.TaskConfig, conf *taskConfig) *task {
	t := &task{
		id:    cfg.ID,
		name:  cfg.Name,
		conf:  conf,
		done:  make(chan struct{}),
		state: stateStarting,
	}
	t.starting.Add(1)
	if conf.StartBlockFor > 0 {
		t.cancelStart = make(chan struct{})
	}
	return t
}

// newExitedTask is a recovered task that had already exited.
func newExitedTask(cfg *drivers.TaskConfig, startedAt, completedAt time.Time, result *drivers.ExitResult) *task {
	t := newTask(cfg, &taskConfig{})
	t.starting.Done()
	t.startedAt = startedAt
	t.finish(result, completedAt)
	return t
}

// block waits out start_block_for; it reports false when the start was
// cancelled.
func (t *task) block() bool {
	if t.conf.StartBlockFor <= 0 {
		return true
	}
	timer := time.NewTimer(t.conf.StartBlockFor)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-t.cancelStart:
		return false
	}
}

func (t *task) abortStart() {
	if t.cancelStart != nil {
		t.cancelStartOnce.Do(func() { close(t.cancelStart) })
	}
}

// start marks the task running and begins its life, with its log files
// where cfg says.
func (t *task) start(cfg *drivers.TaskConfig) error {
	stdout, err := t.openLogs(cfg)
	if err != nil {
		return err
	}
	t.mu.Lock()
	t.state = drivers.TaskStateRunning
	t.startedAt = time.Now()
	t.mu.Unlock()

	t.mu.Lock()
	if t.result == nil {
		t.runTimer = time.AfterFunc(t.conf.RunFor, func() { t.finish(t.conf.exitResult(), time.Now()) })
	}
	t.mu.Unlock()
	if stdout != nil {
		go t.writeRepeats(stdout)
	}
	return nil
}

// signalled is the result of a task terminated by sig, with the exit code
// a shell would report.
func signalled(sig syscall.Signal) *drivers.ExitResult {
	return &drivers.ExitResult{ExitCode: 128 + int(sig), Signal: int(sig)}
}

// finish records the task's end at the given time, which the result
// carries too, as a real driver's does. Only the first end counts.
func (t *task) finish(result *drivers.ExitResult, at time.Time) {
	if result.ExitedAt.IsZero() {
		r := *result
		r.ExitedAt = at
		result = &r
	}
	t.mu.Lock()
	if t.result != nil {
		t.mu.Unlock()
		return
	}
	t.state = drivers.TaskStateExited
	t.completedAt = at
	t.result = result
	for _, timer := range []*time.Timer{t.runTimer, t.graceTimer} {
		if timer != nil {
			timer.Stop()
		}
	}
	t.mu.Unlock()
	close(t.done)
	t.exit.Set(result)
}

// terminate delivers sig to the running task: SIGKILL, or any signal when
// kill_after is not set, ends it at once; otherwise the first signal ends
// it kill_after later and further ones change nothing. It does nothing to
// a task that has already exited.
func (t *task) terminate(sig syscall.Signal) {
	if sig == syscall.SIGKILL || t.conf.KillAfter <= 0 {
		t.finish(signalled(sig), time.Now())
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.result == nil && t.graceTimer == nil {
		t.graceTimer = time.AfterFunc(t.conf.KillAfter, func() { t.finish(signalled(sig), time.Now()) })
	}
}

// stop sends sig, waits up to timeout, then kills the task, and returns
// once it has exited.
func (t *task) stop(timeout time.Duration, sig syscall.Signal) {
	t.terminate(sig)
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-t.done:
		return
	case <-timer.C:
	}
	t.terminate(syscall.SIGKILL)
	<-t.done
}

// openLogs creates the task's log files and writes stdout_string once. It
// returns the open stdout file when more writes are due.
func (t *task) openLogs(cfg *drivers.TaskConfig) (*os.File, error) {
	if cfg.StderrPath != "" {
		f, err := openLog(cfg, cfg.StderrPath)
		if err != nil {
			return nil, err
		}
		f.Close()
	}
	if cfg.StdoutPath == "" {
		return nil, nil
	}
	f, err := openLog(cfg, cfg.StdoutPath)
	if err != nil {
		return nil, err
	}
	if _, err := f.WriteString(t.conf.StdoutString); err != nil {
		f.Close()
		return nil, fmt.Errorf("write stdout log: %w", err)
	}
	if t.conf.StdoutString == "" || t.conf.StdoutRepeat == 0 {
		f.Close()
		return nil, nil
	}
	return f, nil
}

func openLog(cfg *drivers.TaskConfig, base string) (*os.File, error) {
	// alloc/logs is the tasks' to write: the directory is opened beneath
	// the allocation's, and the file replaces whatever a task left there.
	dir, err := cfg.MkdirInAlloc(filepath.Dir(base), 0o755)
	if err != nil {
		return nil, fmt.Errorf("create log directory: %w", err)
	}
	defer dir.Close()
	f, err := logrotate.OpenFile(dir, filepath.Base(base)+".0")
	if err != nil {
		return nil, fmt.Errorf("open log: %w", err)
	}
	return f, nil
}

// writeRepeats writes stdout_string stdout_repeat more times while the
// task runs.
func (t *task) writeRepeats(f *os.File) {
	defer f.Close()
	for range t.conf.StdoutRepeat {
		timer := time.NewTimer(t.conf.StdoutRepeatDuration)
		select {
		case <-timer.C:
		case <-t.done:
			timer.Stop()
			return
		}
		if _, err := f.WriteString(t.conf.StdoutString); err != nil {
			return
		}
	}
}

func (t *task) recordSignal(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.signals = append(t.signals, name)
}

// Status is the task's status as InspectTask reports it.
func (t *task) Status() *drivers.TaskStatus {
	t.mu.Lock()
	defer t.mu.Unlock()
	return &drivers.TaskStatus{
		ID:          t.id,
		Name:        t.name,
		State:       t.state,
		StartedAt:   t.startedAt,
		CompletedAt: t.completedAt,
		ExitResult:  t.result,
		DriverAttributes: map[string]string{
			"run_for": t.conf.RunFor.String(),
		},
	}
}

func (t *task) receivedSignals() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.signals)
}

func (t *task) currentState() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.state
}
