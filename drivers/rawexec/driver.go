// Package rawexec is the raw_exec task driver: it runs a command directly,
// as the agent's user, without isolation.
//
// Each task is owned by a small supervisor process (see SupervisorMain)
// that outlives the agent, so that an agent restart re-attaches to running
// tasks, learns the real exit status of tasks that ended meanwhile, and
// never interrupts their logs.
package rawexec

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/exec/isolate"
)

// DriverName is the raw_exec driver's name, as in Nomad.
const DriverName = "raw_exec"

// handleVersion is the TaskHandle.Version this driver writes.
const handleVersion = 1

// killWait bounds how long StopTask and DestroyTask wait for a task to
// exit after SIGKILL.
const killWait = 30 * time.Second

// supervisorDirName is the directory, inside the task directory, holding
// the state directories of the task's supervisors.
const supervisorDirName = ".supervisor"

// Config is the agent's configuration of the driver.
type Config struct {
	// Enabled allows tasks to run; raw_exec is off unless enabled.
	Enabled bool
	// SupervisorCmd is the command that runs SupervisorMain; the state
	// directory is appended as its last argument. Empty means this
	// executable's hidden "task-supervisor" command.
	SupervisorCmd []string

	// Name and Isolate make this driver another that runs its tasks
	// isolated, under the same supervisors (the exec driver): Name is
	// that driver's, and Isolate reads a task's config and says what runs
	// and how it is isolated. Unset, the driver is raw_exec.
	Name    string
	Isolate func(cfg *drivers.TaskConfig) (*IsolatedTask, error)
}

// IsolatedTask is what an isolated task runs: Command (looked up inside
// the task's root) with Args and Env, isolated as Isolation says.
type IsolatedTask struct {
	Command   string
	Args      []string
	Env       map[string]string
	Isolation *isolate.Spec
}

// Driver is the raw_exec driver.
type Driver struct {
	logger        hclog.Logger
	name          string
	enabled       bool
	supervisorCmd []string
	isolate       func(cfg *drivers.TaskConfig) (*IsolatedTask, error)

	tasks drivers.TaskStore[*task]

	mu       sync.Mutex
	reserved map[string]bool // IDs whose StartTask is under way
}

var _ drivers.Driver = (*Driver)(nil)

// New returns a raw_exec driver.
func New(logger hclog.Logger, cfg Config) *Driver {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	name := DriverName
	if cfg.Name != "" {
		name = cfg.Name
	}
	return &Driver{
		logger:        logger.Named(name),
		name:          name,
		enabled:       cfg.Enabled,
		supervisorCmd: cfg.SupervisorCmd,
		isolate:       cfg.Isolate,
		reserved:      make(map[string]bool),
	}
}

func (d *Driver) Name() string { return d.name }

// JoinsNetNS implements drivers.NetNSJoiner: the supervisor, and so the
// task, is started in the group's network namespace (exec's isolation
// makes no network namespace of its own, and keeps it too).
func (d *Driver) JoinsNetNS() bool { return true }

func (d *Driver) Fingerprint(context.Context) *drivers.Fingerprint {
	fp := &drivers.Fingerprint{
		Attributes: map[string]string{},
		Detected:   true,
		Healthy:    d.enabled,
	}
	if d.enabled {
		fp.Attributes["driver."+d.name] = "1"
		fp.HealthDescription = "healthy"
	} else {
		fp.HealthDescription = "disabled"
	}
	return fp
}

func (d *Driver) StartTask(cfg *drivers.TaskConfig) (*drivers.TaskHandle, error) {
	if !d.enabled {
		return nil, fmt.Errorf("%s driver is disabled on this node", d.name)
	}
	if cfg == nil || cfg.ID == "" {
		return nil, fmt.Errorf("start %s task: task config with an ID is required", d.name)
	}
	if cfg.TaskDir == "" {
		return nil, fmt.Errorf("start task %q: task directory is required", cfg.ID)
	}
	spec, err := d.spec(cfg)
	if err != nil {
		return nil, err
	}

	if err := d.reserve(cfg.ID); err != nil {
		return nil, err
	}
	defer d.release(cfg.ID)

	t, err := d.launch(cfg, spec)
	if err != nil {
		// Unlike a bad config, a failed launch may succeed when retried.
		return nil, drivers.NewRecoverableError(fmt.Errorf("start task %q: %w", cfg.ID, err), true)
	}
	h := &drivers.TaskHandle{
		Version:   handleVersion,
		Driver:    d.name,
		Config:    cfg,
		State:     drivers.TaskStateRunning,
		StartedAt: t.state.StartedAt,
	}
	if err := h.SetDriverState(t.state); err != nil {
		return nil, err
	}
	if err := d.tasks.Add(t.cfg.ID, t); err != nil {
		return nil, err
	}
	d.logger.Debug("started task", "task_id", cfg.ID, "pid", t.state.PID, "supervisor_pid", t.state.SupervisorPID)
	return h, nil
}

// spec turns a task into what its supervisor runs.
func (d *Driver) spec(cfg *drivers.TaskConfig) (*supervisorSpec, error) {
	if d.isolate != nil {
		it, err := d.isolate(cfg)
		if err != nil {
			return nil, fmt.Errorf("task %q: %w", cfg.Name, err)
		}
		return buildIsolatedSpec(cfg, it), nil
	}
	conf, err := parseConfig(cfg.Config)
	if err != nil {
		return nil, fmt.Errorf("task %q: invalid config: %w", cfg.Name, err)
	}
	spec, err := buildSpec(cfg, conf)
	if err != nil {
		return nil, fmt.Errorf("task %q: %w", cfg.Name, err)
	}
	return spec, nil
}

// launch prepares the task's state directory and starts its supervisor.
func (d *Driver) launch(cfg *drivers.TaskConfig, spec *supervisorSpec) (*task, error) {
	taskDir, err := filepath.Abs(cfg.TaskDir)
	if err != nil {
		return nil, fmt.Errorf("task directory: %w", err)
	}
	stateDir := filepath.Join(taskDir, supervisorDirName, url.PathEscape(cfg.ID))
	// A supervisor of an earlier agent may still run this ID: that task
	// must be recovered or destroyed, not started twice. Otherwise a
	// directory left by an earlier run is stale.
	if st, err := readStateAt(cfg, stateDir); err == nil && st.State == stateRunning && isSupervisor(st.SupervisorPID, stateDir) {
		return nil, fmt.Errorf("task is already running under supervisor pid %d; recover or destroy it first", st.SupervisorPID)
	}
	// The task directory may be the task's to write (it runs as the user
	// it was given to): every directory is opened beneath the allocation
	// directory, following no link the task left, and the supervisor gets
	// them open (see supervisorDirs).
	parent, err := cfg.MkdirInAlloc(filepath.Dir(stateDir), 0o700)
	if err != nil {
		return nil, fmt.Errorf("create state directory: %w", err)
	}
	defer parent.Close()
	name := filepath.Base(stateDir)
	if err := parent.RemoveAll(name); err != nil {
		return nil, fmt.Errorf("clear state directory: %w", err)
	}
	dirs, err := openSupervisorDirs(cfg, parent, name)
	if err != nil {
		parent.RemoveAll(name)
		return nil, err
	}
	defer dirs.close()
	if err := writeJSONFile(dirs.state, specFile, spec); err != nil {
		parent.RemoveAll(name)
		return nil, err
	}
	sup, err := startSupervisorIn(cfg.NetNSPath, d.supervisorCommand(), stateDir, dirs)
	if err != nil {
		parent.RemoveAll(name)
		return nil, err
	}
	t := newTask(cfg, driverState{
		StateDir:      stateDir,
		SupervisorPID: sup.cmd.Process.Pid,
		PID:           sup.report.PID,
		PGID:          sup.report.PGID,
		StartedAt:     sup.report.StartedAt,
		PIDNamespace:  spec.Isolation != nil && spec.Isolation.PrivatePID,
	})
	go t.watch(func() { _ = sup.cmd.Wait() })
	return t, nil
}

func (d *Driver) supervisorCommand() []string {
	if len(d.supervisorCmd) > 0 {
		return d.supervisorCmd
	}
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return []string{exe, "task-supervisor"}
}

func (d *Driver) WaitTask(ctx context.Context, taskID string) (<-chan *drivers.ExitResult, error) {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return nil, err
	}
	return drivers.WaitExit(ctx, t.done, func() *drivers.ExitResult { return t.result }), nil
}

func (d *Driver) StopTask(taskID string, timeout time.Duration, signal string) error {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return err
	}
	sig, err := drivers.StopSignal(signal)
	if err != nil {
		return fmt.Errorf("stop task %q: %w", taskID, err)
	}
	if err := t.signal(sig); err != nil {
		return fmt.Errorf("stop task %q: %w", taskID, err)
	}
	if t.waitExit(timeout) {
		return nil
	}
	d.logger.Debug("task outlived its kill timeout, killing it", "task_id", taskID, "timeout", timeout)
	return d.kill(t)
}

// kill sends SIGKILL to the task's group and waits for the task to exit.
func (d *Driver) kill(t *task) error {
	if err := t.signal(syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill task %q: %w", t.cfg.ID, err)
	}
	if !t.waitExit(killWait) {
		return fmt.Errorf("kill task %q: still running %s after SIGKILL", t.cfg.ID, killWait)
	}
	return nil
}

func (d *Driver) SignalTask(taskID string, signal string) error {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return err
	}
	sig, err := drivers.Signal(signal)
	if err != nil {
		return fmt.Errorf("signal task %q: %w", taskID, err)
	}
	if t.exited() {
		return fmt.Errorf("signal task %q: task has exited", taskID)
	}
	if err := t.signal(sig); err != nil {
		return fmt.Errorf("signal task %q: %w", taskID, err)
	}
	return nil
}

// RecoverTask re-attaches to a task's supervisor. The supervisor's state
// file decides: a task that exited meanwhile yields its recorded result, a
// running one is watched until its supervisor exits, and one whose
// supervisor died without recording a result is lost.
func (d *Driver) RecoverTask(h *drivers.TaskHandle) error {
	if h == nil || h.Config == nil || h.Config.ID == "" {
		return errors.New("recover raw_exec task: handle with a task config and ID is required")
	}
	id := h.Config.ID
	if h.Driver != "" && h.Driver != d.name {
		return fmt.Errorf("recover task %q: handle is for driver %q, not %q", id, h.Driver, d.name)
	}
	if d.tasks.Has(id) {
		return nil
	}
	var ds driverState
	if err := h.GetDriverState(&ds); err != nil {
		return fmt.Errorf("recover task %q: %w", id, err)
	}
	if ds.StateDir == "" || ds.SupervisorPID <= 0 || ds.PGID <= 0 {
		return fmt.Errorf("recover task %q: driver state lacks the supervisor's state directory or pids", id)
	}
	st, err := readStateAt(h.Config, ds.StateDir)
	if err != nil {
		// A task whose state cannot be read (it replaced its state
		// directory with a link, say) must not run on unsupervised: the
		// client counts it as ended, and may start it again.
		killUnwatched(ds)
		return fmt.Errorf("recover task %q: %w", id, err)
	}

	t := newTask(h.Config, ds)
	if st.State == stateExited {
		t.finish(st.result(), st.FinishedAt)
	} else {
		wait, err := watchSupervisor(ds.SupervisorPID, ds.StateDir)
		switch {
		case errors.Is(err, errProcessGone):
			// It may have recorded the exit just before it went.
			t.finish(resultFromState(h.Config, ds.StateDir))
		case err != nil:
			return fmt.Errorf("recover task %q: %w", id, err)
		default:
			go t.watch(wait)
		}
	}
	if err := d.tasks.Add(t.cfg.ID, t); err != nil {
		return fmt.Errorf("recover task %q: %w", id, err)
	}
	d.logger.Debug("recovered task", "task_id", id, "exited", t.exited())
	return nil
}

func (d *Driver) InspectTask(taskID string) (*drivers.TaskStatus, error) {
	return drivers.StatusOf(&d.tasks, taskID)
}

// DestroyTask forgets the task and deletes its state directory; force
// kills it first if it still runs.
func (d *Driver) DestroyTask(taskID string, force bool) error {
	t, err := d.tasks.Get(taskID)
	if err != nil {
		return err
	}
	if !t.exited() {
		if !force {
			return fmt.Errorf("destroy task %q: task is still running", taskID)
		}
		if err := d.kill(t); err != nil {
			return fmt.Errorf("destroy task %q: %w", taskID, err)
		}
	}
	d.tasks.Remove(taskID, t)
	if err := removeStateDir(t.cfg, t.state.StateDir); err != nil {
		return fmt.Errorf("destroy task %q: remove state directory: %w", taskID, err)
	}
	return nil
}

// killUnwatched kills the task of ds, and its supervisor, if its
// supervisor still runs it.
func killUnwatched(ds driverState) {
	if !isSupervisor(ds.SupervisorPID, ds.StateDir) {
		return
	}
	_ = syscall.Kill(-ds.PGID, syscall.SIGKILL)
	_ = syscall.Kill(ds.SupervisorPID, syscall.SIGKILL)
}

// removeStateDir removes the state directory at path, and its parent
// once no other run of the task uses it, beneath the allocation's
// directory. One already gone, with its allocation directory perhaps, is
// fine.
func removeStateDir(cfg *drivers.TaskConfig, path string) error {
	parent, err := cfg.OpenInAlloc(filepath.Dir(path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer parent.Close()
	if err := parent.RemoveAll(filepath.Base(path)); err != nil {
		return err
	}
	if taskDir, err := cfg.OpenInAlloc(filepath.Dir(filepath.Dir(path))); err == nil {
		_ = taskDir.Remove(filepath.Base(filepath.Dir(path)))
		taskDir.Close()
	}
	return nil
}

// Shutdown forgets every task. Their supervisors keep running them, for
// the next agent to recover.
func (d *Driver) Shutdown() {
	d.tasks.Clear()
}

func (d *Driver) reserve(id string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.reserved[id] || d.tasks.Has(id) {
		return fmt.Errorf("task %q already exists", id)
	}
	d.reserved[id] = true
	return nil
}

func (d *Driver) release(id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.reserved, id)
}
