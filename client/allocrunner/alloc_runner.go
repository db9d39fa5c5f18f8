package allocrunner

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/client/allocrunner/taskrunner"
	"github.com/drover-io/drover/client/state"
	"github.com/drover-io/drover/internal/lazylog"
	"github.com/drover-io/drover/structs"
)

// AllocRunner runs one allocation. Create it with NewAllocRunner, call
// Restore when picking up after an agent restart, then `go Run()`.
type AllocRunner struct {
	id       string
	logger   hclog.Logger
	stateDB  state.StateDB
	allocDir *allocdir.AllocDir
	// node is the node the allocation runs on, for hooks that label or
	// interpolate with it. It may be nil.
	node  *structs.Node
	hooks []RunnerHook
	// maxRunMetrics emits the allocation's max_run_duration series, the
	// group hook's and the task runners' alike.
	maxRunMetrics *maxRunDurationMetrics

	// updateMu serialises Update, and Update with the start of Destroy;
	// updatesClosed, which it guards, is set by Destroy: later updates
	// are ignored.
	updateMu      sync.Mutex
	updatesClosed bool

	// mu guards the fields below and the entries' mutable fields.
	mu    sync.Mutex
	alloc *structs.Allocation
	// arState is the runner's persisted state. Its KillReason is the kill
	// in force, recorded by killAll or restored from an earlier agent.
	arState *state.AllocRunnerState
	// phase is where the runner is in its life (phase.go), which decides
	// what a kill asked now does.
	phase phase
	// preKillDone is closed when the PreKill hooks of the kill carried
	// out have returned; nil until one is.
	preKillDone chan struct{}
	// tasks are the group's tasks, in its order.
	tasks []*taskEntry

	// taskStateCh wakes the run loop when a task's state changed, when
	// the last task runner returned (tasksRunning, the runners still
	// running, is then zero) and on Shutdown; it holds at most one pending
	// wake-up.
	taskStateCh  chan struct{}
	tasksRunning atomic.Int64
	// network is the group's network namespace once the network hook
	// made it; nil in host mode.
	network atomic.Pointer[taskrunner.NetworkIsolation]

	// notifier tells the state handler of the client state.
	notifier *stateNotifier

	shutdownCh   chan struct{}
	shutdownOnce sync.Once
	destroyOnce  sync.Once
	// running counts Run from its start to its return: one, or none.
	// (Not a channel: it is only waited for.)
	running sync.WaitGroup
	waitCh  chan struct{}
}

// taskEntry is one task of the allocation.
type taskEntry struct {
	runner *taskrunner.TaskRunner
	task   *structs.Task
	// gate is closed when the lifecycle lets the task start.
	gate     chan struct{}
	gateOpen bool
	// killSent records that the lifecycle asked to kill the task.
	killSent bool
}

// NewAllocRunner returns a runner for cfg.Alloc with a task runner for each
// task of its group.
func NewAllocRunner(cfg *Config) (*AllocRunner, error) {
	alloc := cfg.Alloc
	if alloc == nil || alloc.ID == "" {
		return nil, errors.New("new alloc runner: allocation with an ID is required")
	}
	tg := alloc.LookupTaskGroup()
	if tg == nil {
		return nil, fmt.Errorf("new alloc runner for %s: job has no task group %q", alloc.ID, alloc.TaskGroup)
	}
	if cfg.StateDB == nil || cfg.Drivers == nil || cfg.AllocDirRoot == "" {
		return nil, fmt.Errorf("new alloc runner for %s: state DB, drivers and alloc dir root are required", alloc.ID)
	}
	logger := cfg.Logger
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	logger = lazylog.New(logger, "alloc_runner", "alloc_id", alloc.ID)
	dir, err := allocdir.New(cfg.AllocDirRoot, alloc.ID)
	if err != nil {
		return nil, fmt.Errorf("new alloc runner: %w", err)
	}

	ar := &AllocRunner{
		id:          alloc.ID,
		logger:      logger,
		stateDB:     cfg.StateDB,
		allocDir:    dir,
		node:        cfg.Node,
		alloc:       alloc,
		arState:     &state.AllocRunnerState{},
		taskStateCh: make(chan struct{}, 1),
		shutdownCh:  make(chan struct{}),
		waitCh:      make(chan struct{}),
	}
	ar.notifier = newStateNotifier(cfg.StateUpdater, ar.Alloc)
	ar.maxRunMetrics = newMaxRunDurationMetrics(cfg.Metrics, alloc, cfg.Node)
	for _, task := range tg.Tasks {
		td, err := dir.TaskDir(task.Name)
		if err != nil {
			return nil, fmt.Errorf("new alloc runner for %s: %w", alloc.ID, err)
		}
		gate := make(chan struct{})
		tr, err := taskrunner.NewTaskRunner(&taskrunner.Config{
			Alloc:        alloc,
			Task:         task,
			Logger:       logger,
			TaskDir:      td,
			Drivers:      cfg.Drivers,
			StateDB:      cfg.StateDB,
			StateUpdater: ar,
			Node:         cfg.Node,
			StartGate:    gate,
			Artifact:     cfg.Artifact,
			MaxRunEvents: ar.maxRunMetrics,
			Identities:   cfg.Identities,
			Variables:    cfg.Variables,
			Network:      ar.network.Load,
		})
		if err != nil {
			return nil, fmt.Errorf("new alloc runner for %s: %w", alloc.ID, err)
		}
		e := &taskEntry{runner: tr, task: task, gate: gate}
		ar.tasks = append(ar.tasks, e)
	}
	ar.hooks = ar.initRunnerHooks(cfg)
	return ar, nil
}

// ID is the allocation's ID.
func (ar *AllocRunner) ID() string { return ar.id }

// Alloc returns a copy of the allocation with its current client state:
// ClientStatus, ClientDescription and TaskStates.
func (ar *AllocRunner) Alloc() *structs.Allocation {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	a := ar.alloc.CopySkipJob()
	g := ar.groupStatesLocked()
	a.TaskStates = g.states
	a.ClientStatus, a.ClientDescription = clientStatus(g, ar.alloc.ClientStatus, ar.arState.KillReason, ar.alloc.MaxRunOutcome())
	if iso := ar.network.Load(); iso != nil && iso.Status != nil {
		a.NetworkStatus = iso.Status.Copy()
	}
	return a
}

// setNetwork records the group's network namespace, for the tasks to start
// in and the client state to report.
func (ar *AllocRunner) setNetwork(iso *taskrunner.NetworkIsolation) {
	ar.network.Store(iso)
	ar.notifier.notify()
}

// AllocDir is the allocation's directory.
func (ar *AllocRunner) AllocDir() *allocdir.AllocDir { return ar.allocDir }

// WaitCh is closed once every task is dead and the postrun hooks have run.
// It stays open when the runner is shut down with tasks still running.
func (ar *AllocRunner) WaitCh() <-chan struct{} { return ar.waitCh }

// TaskStateUpdated implements taskrunner.StateUpdater.
func (ar *AllocRunner) TaskStateUpdated() {
	select {
	case ar.taskStateCh <- struct{}{}:
	default:
	}
}

// groupStatesLocked collects the tasks' definitions and states. The caller
// holds mu.
func (ar *AllocRunner) groupStatesLocked() groupStates {
	g := groupStates{
		tasks:  make([]*structs.Task, len(ar.tasks)),
		states: make(map[string]*structs.TaskState, len(ar.tasks)),
	}
	for i, e := range ar.tasks {
		g.tasks[i] = e.task
		g.states[e.task.Name] = e.runner.TaskState()
	}
	return g
}

// desiredStop reports whether the servers want the allocation stopped.
func desiredStop(a *structs.Allocation) bool {
	return a.DesiredStatus == structs.AllocDesiredStatusStop || a.DesiredStatus == structs.AllocDesiredStatusEvict
}
