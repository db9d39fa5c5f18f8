package periodic

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/cronexpr"
	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/structs"
)

// Launcher is what the dispatcher needs from the server.
type Launcher interface {
	// Launch creates the child of a periodic job for the launch time.
	Launch(ctx context.Context, job *structs.Job, at time.Time) error
	// RunningChild returns the ID of a child of the job that is not dead,
	// or "" when every child is.
	RunningChild(job *structs.Job) (string, error)
	// Skipped records that the launch at at was skipped because the child
	// still runs, where users can see it.
	Skipped(ctx context.Context, job *structs.Job, at time.Time, child string) error
	// StopRunning stops every child of the job that is not dead (overlap
	// = "replace"), but the one of the launch at at, and returns their
	// IDs.
	StopRunning(ctx context.Context, job *structs.Job, at time.Time) ([]string, error)
}

// Dispatcher launches, on the leader, the children of periodic jobs
// when their cron specs come due. A job that prohibits overlap skips a
// launch while an earlier child is not dead.
type Dispatcher struct {
	logger   hclog.Logger
	launcher Launcher
	now      func() time.Time

	mu      sync.Mutex
	enabled bool
	tracked map[periodicKey]*periodicEntry
	updated chan struct{}
}

// periodicEntry is a tracked job and its next launch.
type periodicEntry struct {
	job  *structs.Job
	next time.Time // zero: the specs never fire again
}

func NewDispatcher(logger hclog.Logger, launcher Launcher, now func() time.Time) *Dispatcher {
	if now == nil {
		now = time.Now
	}
	return &Dispatcher{
		logger:   logger,
		launcher: launcher,
		now:      now,
		tracked:  make(map[periodicKey]*periodicEntry),
		updated:  make(chan struct{}, 1),
	}
}

// SetEnabled turns the dispatcher on or off; off forgets every job.
func (d *Dispatcher) SetEnabled(enabled bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.enabled = enabled
	d.tracked = make(map[periodicKey]*periodicEntry)
	d.poke()
}

// Add tracks a job, or updates it, from now on: its next launch is the
// first its specs give after now. A job that is not periodic, or stopped,
// is forgotten. It never blocks.
func (d *Dispatcher) Add(job *structs.Job) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.enabled {
		return
	}
	key := periodicKey{job.Namespace, job.ID}
	if !job.LaunchesPeriodically() || job.Stop {
		if _, ok := d.tracked[key]; ok {
			delete(d.tracked, key)
			d.poke()
		}
		return
	}
	next, err := NextLaunch(job, d.now())
	if err != nil {
		d.logger.Error("periodic job has a bad schedule; not tracking it", "job_id", job.ID, "error", err)
		delete(d.tracked, key)
		return
	}
	d.tracked[key] = &periodicEntry{job: job, next: next}
	d.poke()
}

// Remove forgets a job. It never blocks.
func (d *Dispatcher) Remove(namespace, id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	key := periodicKey{namespace, id}
	if _, ok := d.tracked[key]; ok {
		delete(d.tracked, key)
		d.poke()
	}
}

// Tracks reports whether the job is tracked.
func (d *Dispatcher) Tracks(namespace, id string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.tracked[periodicKey{namespace, id}]
	return ok
}

// poke wakes Run to look at the schedule again. The caller holds mu.
func (d *Dispatcher) poke() {
	select {
	case d.updated <- struct{}{}:
	default:
	}
}

// nextDue returns the earliest next launch of the tracked jobs.
func (d *Dispatcher) nextDue() (time.Time, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var earliest time.Time
	for _, e := range d.tracked {
		if e.next.IsZero() {
			continue
		}
		if earliest.IsZero() || e.next.Before(earliest) {
			earliest = e.next
		}
	}
	return earliest, !earliest.IsZero()
}

// Run launches the tracked jobs as they come due, until ctx ends.
func (d *Dispatcher) Run(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		timer.Stop()
		var fire <-chan time.Time
		if next, ok := d.nextDue(); ok {
			timer.Reset(next.Sub(d.now()))
			fire = timer.C
		}
		select {
		case <-ctx.Done():
			return
		case <-d.updated:
		case <-fire:
			d.dispatchDue(ctx)
		}
	}
}

// dueLaunch is a job to launch and the launch time it is due for.
type dueLaunch struct {
	job *structs.Job
	at  time.Time
}

// dispatchDue launches every job whose next launch has come, and moves
// each to its first launch after now: runs missed while the leader was
// busy are not made up one by one.
func (d *Dispatcher) dispatchDue(ctx context.Context) {
	now := d.now()
	var due []dueLaunch
	d.mu.Lock()
	for _, e := range d.tracked {
		if e.next.IsZero() || e.next.After(now) {
			continue
		}
		due = append(due, dueLaunch{job: e.job, at: e.next})
		next, err := NextLaunch(e.job, now)
		if err != nil {
			next = time.Time{}
		}
		e.next = next
	}
	d.mu.Unlock()
	for _, l := range due {
		d.LaunchUnlessOverlapping(ctx, l.job, l.at)
	}
}

// LaunchUnlessOverlapping launches a job's child for at, as the job's
// overlap policy says while an earlier child is not dead yet: skip the
// launch (prohibit_overlap), stop that child first (replace), or launch
// beside it (allow).
func (d *Dispatcher) LaunchUnlessOverlapping(ctx context.Context, job *structs.Job, at time.Time) {
	switch job.Periodic.OverlapPolicy() {
	case structs.PeriodicOverlapReplace:
		stopped, err := d.launcher.StopRunning(ctx, job, at)
		if err != nil {
			// Launching beside a child the job wants replaced would
			// break its promise; the next launch tries again.
			d.logger.Error("stop the running children of a periodic job that replaces them; not launching", "job_id", job.ID, "launch", at, "error", err)
			return
		}
		if len(stopped) > 0 {
			d.logger.Info("replacing the running children of periodic job", "job_id", job.ID, "launch", at, "stopped", stopped)
		}
	case structs.PeriodicOverlapSkip:
		child, err := d.launcher.RunningChild(job)
		if err != nil {
			d.logger.Error("check periodic job's children", "job_id", job.ID, "error", err)
			return
		}
		if child != "" {
			d.logger.Info("skipping periodic launch: a previous child is still running and the job prohibits overlap",
				"job_id", job.ID, "launch", at, "child", child)
			if err := d.launcher.Skipped(ctx, job, at, child); err != nil {
				d.logger.Error("record skipped periodic launch", "job_id", job.ID, "launch", at, "error", err)
			}
			return
		}
	}
	if err := d.launcher.Launch(ctx, job, at); err != nil {
		d.logger.Error("launch periodic job", "job_id", job.ID, "launch", at, "error", err)
	}
}

// NextLaunch returns the first time after after that any of the job's
// cron specs fires, in the job's time zone, or the zero time if none ever
// fires again.
func NextLaunch(job *structs.Job, after time.Time) (time.Time, error) {
	p := job.Periodic
	if p == nil {
		return time.Time{}, fmt.Errorf("job %q is not periodic", job.ID)
	}
	loc, err := time.LoadLocation(p.TimeZone)
	if err != nil {
		return time.Time{}, fmt.Errorf("time_zone %q: %w", p.TimeZone, err)
	}
	var earliest time.Time
	for _, spec := range p.CronSpecs() {
		expr, err := cronexpr.Parse(spec)
		if err != nil {
			return time.Time{}, fmt.Errorf("cron spec %q: %w", spec, err)
		}
		next := expr.Next(after.In(loc))
		if next.IsZero() {
			continue
		}
		if earliest.IsZero() || next.Before(earliest) {
			earliest = next
		}
	}
	return earliest, nil
}

// periodicKey names a periodic job.
type periodicKey struct{ namespace, id string }
