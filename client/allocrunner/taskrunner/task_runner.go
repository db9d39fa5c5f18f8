package taskrunner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/client/servicecheck"
	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/internal/lazylog"
	"github.com/drover-io/drover/internal/netguard"
	"github.com/drover-io/drover/structs"
)

// ErrTaskNotRunning is returned for a request that needs a running task.
var ErrTaskNotRunning = errors.New("task is not running")

// TaskRunner runs one task. Create it with NewTaskRunner, call Restore when
// picking up after an agent restart, then Run.
type TaskRunner struct {
	// addresses is the client's address policy, which service checks the
	// job points at addresses of its choosing are held to.
	addresses *netguard.Policy
	allocID   string
	taskName  string
	logger    hclog.Logger
	taskDir   *allocdir.TaskDir
	drivers   *drivers.Catalog
	stateDB   state.StateDB
	updater   StateUpdater
	node      *structs.Node
	startGate <-chan struct{}
	// network is the group's network namespace; nil in host mode.
	network func() *NetworkIsolation

	prestartHooks []prestartHook

	// persistMu orders state writes: a state change and its write happen
	// under it, so the database never goes back to an older state.
	persistMu sync.Mutex
	// mu guards the fields below.
	mu       sync.Mutex
	alloc    *structs.Allocation
	task     *structs.Task
	state    *structs.TaskState
	local    *state.TaskRunnerLocalState
	restarts *restartTracker
	killing  bool
	// checks runs the service checks of checkRun, the run in progress
	// (nil between runs, and for a task with none); checkDefs is what
	// they were built from, once checksBuilt.
	checks      *servicecheck.Set
	checkRun    *drivers.TaskHandle
	checkDefs   checkDefs
	checksBuilt bool

	// maxRun enforces the task's own max_run_duration; maxRunEvents, nil
	// or not, hears what it did.
	maxRun       *maxRunWatch
	maxRunEvents MaxRunEvents

	// killCtx is cancelled by Kill; shutdownCtx by Shutdown. Both also
	// cancel setupCancel, the context of the prestart hooks under way
	// (guarded by mu): a context derived from theirs would leave each an
	// empty map of children for the runner's life. With superviseRun's
	// wait on shutdownCtx, rather than a context of the run's own, it pays:
	// BenchmarkAllocRunner_Memory keeps 9.36 KB of heap per allocation of
	// one task, 10.05 KB with derived contexts (+7.4%, medians of 6,
	// p=0.002; measured on 01f6819).
	killCtx        context.Context
	killCancel     context.CancelFunc
	shutdownCtx    context.Context
	shutdownCancel context.CancelFunc
	setupCancel    context.CancelFunc

	restartCh chan restartRequest
	// started is set when Run begins (a flag, not a channel: nothing
	// waits for it); waitCh is closed when Run returns.
	started atomic.Bool
	waitCh  chan struct{}
}

// restartRequest asks the run loop to restart the running task; done is
// closed once the old run has stopped.
type restartRequest struct {
	event *structs.TaskEvent
	done  chan struct{}
	// runID, when set, is the run to restart: a request that finds
	// another run is stale, and dropped.
	runID string
	// failure counts the restart against the restart policy (a check's
	// check_restart), which may then fail the task instead.
	failure bool
}

// NewTaskRunner returns a runner for cfg.Task. The task is pending with a
// Received event until Restore loads an earlier state.
func NewTaskRunner(cfg *Config) (*TaskRunner, error) {
	if cfg.Alloc == nil || cfg.Task == nil {
		return nil, errors.New("new task runner: allocation and task are required")
	}
	if cfg.TaskDir == nil || cfg.Drivers == nil || cfg.StateDB == nil {
		return nil, fmt.Errorf("new task runner for %q: task dir, drivers and state DB are required", cfg.Task.Name)
	}
	logger := cfg.Logger
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	artifacts := cfg.Artifact
	if artifacts == nil {
		artifacts = DefaultArtifactConfig()
	}
	jobType := ""
	if cfg.Alloc.Job != nil {
		jobType = cfg.Alloc.Job.Type
	}
	tr := &TaskRunner{
		allocID:      cfg.Alloc.ID,
		taskName:     cfg.Task.Name,
		logger:       lazylog.New(logger, "task_runner", "task", cfg.Task.Name),
		taskDir:      cfg.TaskDir,
		drivers:      cfg.Drivers,
		stateDB:      cfg.StateDB,
		addresses:    artifacts.AddressPolicy(),
		updater:      cfg.StateUpdater,
		node:         cfg.Node,
		startGate:    cfg.StartGate,
		network:      cfg.Network,
		alloc:        cfg.Alloc,
		task:         cfg.Task,
		state:        &structs.TaskState{State: structs.TaskStatePending},
		local:        &state.TaskRunnerLocalState{},
		restarts:     newRestartTracker(cfg.Task.RestartPolicy, jobType),
		maxRunEvents: cfg.MaxRunEvents,
		restartCh:    make(chan restartRequest),
		waitCh:       make(chan struct{}),
	}
	// One slice of its final length: the runner keeps it as long as the
	// task runs.
	tr.prestartHooks = []prestartHook{
		taskDirHook{},
		dispatchPayloadHook{payload: jobPayload(cfg.Alloc)},
		&artifactHook{config: artifacts, logger: tr.logger},
		&identityHook{signer: cfg.Identities, allocID: cfg.Alloc.ID, done: tr.waitCh},
		&templateHook{tr: tr, vars: cfg.Variables, logger: tr.logger},
	}
	tr.maxRun = newMaxRunWatch(tr)
	tr.killCtx, tr.killCancel = context.WithCancel(context.Background())
	tr.shutdownCtx, tr.shutdownCancel = context.WithCancel(context.Background())
	tr.appendEvent(receivedEvent())
	return tr, nil
}

// Name is the task's name.
func (tr *TaskRunner) Name() string { return tr.taskName }

// Task returns the task's current definition.
func (tr *TaskRunner) Task() *structs.Task {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.task
}

// TaskState returns a copy of the task's state.
func (tr *TaskRunner) TaskState() *structs.TaskState {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.state.Copy()
}

// WaitCh is closed when Run returns: the task is dead, or the runner was
// shut down (see Shutdown).
func (tr *TaskRunner) WaitCh() <-chan struct{} { return tr.waitCh }

// IsDead reports whether the task is dead for good.
func (tr *TaskRunner) IsDead() bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.state.State == structs.TaskStateDead
}

// Update hands the runner a new version of its allocation (an in-place
// update). The task's new definition applies from its next run; the
// restart policy and the task's own max_run_duration (re-armed on the
// same anchor) apply at once.
func (tr *TaskRunner) Update(alloc *structs.Allocation) {
	tr.mu.Lock()
	tr.alloc = alloc
	if tg := alloc.LookupTaskGroup(); tg != nil {
		if task := tg.LookupTask(tr.taskName); task != nil {
			tr.task = task
			tr.restarts.setPolicy(task.RestartPolicy)
		}
	}
	tr.mu.Unlock()
	tr.maxRun.apply()
	tr.refreshChecks()
}

// Shutdown detaches the runner from its task, which keeps running: the
// agent is stopping, and the next one re-attaches. It returns once Run has
// returned.
func (tr *TaskRunner) Shutdown() {
	tr.shutdownCancel()
	tr.cancelSetup()
	if tr.started.Load() {
		<-tr.waitCh
	}
}

// snapshot returns the current allocation and task definition.
func (tr *TaskRunner) snapshot() (*structs.Allocation, *structs.Task) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.alloc, tr.task
}

// currentHandle returns the handle of the run in progress, or nil.
func (tr *TaskRunner) currentHandle() *drivers.TaskHandle {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.local.TaskHandle
}

// setupContext is the context of a run's prestart hooks: cancelled by a
// kill or the agent stopping, and by end, which the caller calls once the
// hooks have returned.
func (tr *TaskRunner) setupContext() (ctx context.Context, end func()) {
	ctx, cancel := context.WithCancel(context.Background())
	tr.mu.Lock()
	tr.setupCancel = cancel
	tr.mu.Unlock()
	// A kill or stop that came before setupCancel was set did not see it.
	if tr.killed() || tr.shuttingDown() {
		cancel()
	}
	return ctx, func() {
		tr.mu.Lock()
		tr.setupCancel = nil
		tr.mu.Unlock()
		cancel()
	}
}

// cancelSetup cancels the prestart hooks under way, if any.
func (tr *TaskRunner) cancelSetup() {
	tr.mu.Lock()
	cancel := tr.setupCancel
	tr.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func (tr *TaskRunner) killed() bool { return tr.killCtx.Err() != nil }

func (tr *TaskRunner) shuttingDown() bool { return tr.shutdownCtx.Err() != nil }

// Fail marks a task that has not run dead and failed, recording ev: its
// allocation could not be set up. Run then returns at once. It does nothing
// to a task that has started.
func (tr *TaskRunner) Fail(ev *structs.TaskEvent) {
	if tr.started.Load() {
		return
	}
	tr.updateState(func(ts *structs.TaskState, _ *state.TaskRunnerLocalState) {
		if ev != nil {
			tr.appendEvent(ev)
		}
		setDead(ts, true, nil)
	})
}
