package docker

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/drover-io/drover/drivers"
)

// driverState is the docker driver's TaskHandle.DriverState: the
// container a later agent re-attaches to.
type driverState struct {
	ContainerID   string    `json:"container_id"`
	ContainerName string    `json:"container_name"`
	Image         string    `json:"image"`
	ImageID       string    `json:"image_id"`
	PID           int       `json:"pid"`
	StartedAt     time.Time `json:"started_at"`
}

type phase int

const (
	phaseStarting phase = iota // pulling, creating, starting
	phaseRunning               // the container runs, or ran and is being watched
)

// task is one run the driver tracks, from StartTask or RecoverTask until
// DestroyTask.
type task struct {
	cfg      *drivers.TaskConfig
	stateDir string

	// startCtx is cancelled, with the reason as its cause, to abandon the
	// start; started is closed once StartTask has returned.
	startCtx context.Context
	abort    context.CancelCauseFunc
	started  chan struct{}

	mu    sync.Mutex
	phase phase
	state driverState
	// released is set once DestroyTask has let go of the image.
	released bool

	// exited is closed when the engine reports the container stopped;
	// done once its output has drained too and result is set.
	exited      chan struct{}
	done        chan struct{}
	result      *drivers.ExitResult
	completedAt time.Time

	// stopWatch detaches the watcher (the agent stopping); watchDone is
	// closed when it has returned.
	stopWatch context.CancelFunc
	watchDone chan struct{}
	logs      *logStream
	// proc, when the driver could open it, is the container's first
	// process; exitSeen is when it was seen to exit.
	proc     *procHandle
	exitSeen time.Time
	// killSent is set once the driver has signalled the container, so
	// that a SIGKILL exit is not mistaken for an OOM kill in the making.
	killSent bool
}

func newTask(cfg *drivers.TaskConfig) *task {
	ctx, abort := context.WithCancelCause(context.Background())
	return &task{
		cfg:      cfg,
		stateDir: stateDir(cfg),
		startCtx: ctx,
		abort:    abort,
		started:  make(chan struct{}),
		exited:   make(chan struct{}),
		done:     make(chan struct{}),
	}
}

func (t *task) currentPhase() phase {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.phase
}

func (t *task) containerID() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.state.ContainerID
}

// running records the container the task now is.
func (t *task) running(st driverState) {
	t.mu.Lock()
	t.phase, t.state = phaseRunning, st
	t.mu.Unlock()
}

func (t *task) finish(res *drivers.ExitResult, at time.Time) {
	t.mu.Lock()
	t.result, t.completedAt = res, at
	t.mu.Unlock()
	close(t.done)
}

func (t *task) sendingKill() {
	t.mu.Lock()
	t.killSent = true
	t.mu.Unlock()
}

func (t *task) killWasSent() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.killSent
}

func (t *task) hasExited() bool { return drivers.Closed(t.exited) }

// waitDone waits up to timeout for the task to be done.
func (t *task) waitDone(timeout time.Duration) bool { return drivers.WaitClosed(t.done, timeout) }

// detach stops watching the container and copying its output, leaving
// the container as it is.
func (t *task) detach() {
	t.mu.Lock()
	stop, watchDone, logs, proc := t.stopWatch, t.watchDone, t.logs, t.proc
	t.mu.Unlock()
	if stop != nil {
		stop()
		<-watchDone
	}
	if logs != nil {
		logs.stop()
	}
	if proc != nil {
		proc.close()
	}
}

// watchProc records when the container's first process exits, as it
// happens: the engine learns of it later.
func (t *task) watchProc(p *procHandle) {
	at, err := p.wait()
	if err != nil {
		return // closed
	}
	t.mu.Lock()
	t.exitSeen = at
	t.mu.Unlock()
}

// exitTime is when the container exited: when the driver saw its process
// go, else when the engine says.
func (t *task) exitTime(engine time.Time) time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.exitSeen.IsZero() && (engine.IsZero() || t.exitSeen.Before(engine)) {
		return t.exitSeen
	}
	return engine
}

// Status is the task's status as InspectTask reports it.
func (t *task) Status() *drivers.TaskStatus {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := drivers.RunStatus(t.cfg, t.state.StartedAt, t.completedAt, t.result, map[string]string{
		"container_id": t.state.ContainerID,
		"image":        t.state.Image,
		"image_id":     t.state.ImageID,
	})
	if t.result == nil && t.state.PID > 0 {
		// The container's first process leads its process group, which
		// is how the client reads a task's processes.
		s.DriverAttributes["pid"] = strconv.Itoa(t.state.PID)
		s.DriverAttributes["pgid"] = strconv.Itoa(t.state.PID)
	}
	return s
}
