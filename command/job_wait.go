package command

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/drover-io/drover/api"
)

// Exit codes of `job run -wait`, beyond those of the evaluation monitor.
const (
	// exitDeadline says that the job finished and that max_run_duration,
	// the group's or a task's, stopped at least one of its allocations,
	// and none failed otherwise.
	exitDeadline = 3
	// exitWaitTimeout says that -wait-timeout passed before the job
	// finished; the job goes on.
	exitWaitTimeout = 4
)

// allocOutcome is how an allocation ended, as `job run -wait` counts it.
type allocOutcome int

const (
	outcomeRunning allocOutcome = iota
	outcomeComplete
	outcomeTimedOut
	outcomeFailed
	outcomeStopped
)

func (o allocOutcome) String() string {
	switch o {
	case outcomeComplete:
		return "complete"
	case outcomeTimedOut:
		return "timed out"
	case outcomeFailed:
		return "failed"
	case outcomeStopped:
		return "stopped"
	}
	return "running"
}

// jobWaiter follows a job's allocations until the job is dead: every
// allocation that counts is terminal and no evaluation of the job is
// left to run (a failed allocation's reschedule is one). It blocks on the
// agent, never spins, and prints each allocation's end as it happens.
type jobWaiter struct {
	*evalMonitor
	jobID     string
	namespace string
	// sinceIndex is the index of the evaluation the submission created:
	// an allocation created before it was there already.
	sinceIndex uint64
	// printed holds the allocations whose end was printed or that had
	// ended, superseded, before the wait began.
	printed map[string]bool
}

func newJobWaiter(m *evalMonitor, jobID, namespace string, sinceIndex uint64) *jobWaiter {
	return &jobWaiter{evalMonitor: m, jobID: jobID, namespace: namespace, sinceIndex: sinceIndex, printed: map[string]bool{}}
}

// wait blocks until the job is dead or ctx ends, and returns the exit
// code its allocations' outcomes mean.
func (w *jobWaiter) wait(ctx context.Context) int {
	w.headline("Waiting for job %q to finish", w.jobID)
	job, _, err := w.client.Jobs().Info(w.jobID, w.query(ctx, 0))
	if err != nil {
		return w.stopped(ctx, "reading job", err)
	}
	var allocIndex uint64
	for first := true; ; first = false {
		allocs, qm, err := w.client.Jobs().Allocations(w.jobID, false, w.query(ctx, allocIndex))
		if err != nil {
			return w.stopped(ctx, "reading the job's allocations", err)
		}
		latest := latestAllocs(allocs)
		if first {
			w.skipSuperseded(allocs, latest)
			w.sayIfAlreadyFinished(latest)
		}
		w.reportEnds(allocs)
		allocIndex = qm.LastIndex
		if !allEnded(latest) {
			if err := w.pace(ctx, qm); err != nil {
				return w.stopped(ctx, "reading the job's allocations", err)
			}
			continue
		}
		pending, evalIndex, err := w.pendingEvals(ctx, deref(job.CreateIndex), 0)
		if err != nil {
			return w.stopped(ctx, "reading the job's evaluations", err)
		}
		if !pending {
			expired, err := w.pendingExpired(ctx, deref(job.CreateIndex))
			if err != nil {
				return w.stopped(ctx, "reading the job's evaluations", err)
			}
			return w.finishPending(latest, expired)
		}
		// An evaluation is still to run, such as a reschedule that waits
		// out its delay: block until the job's evaluations change, then
		// look at the allocations again at once.
		if _, _, err := w.pendingEvals(ctx, deref(job.CreateIndex), evalIndex); err != nil {
			return w.stopped(ctx, "reading the job's evaluations", err)
		}
		allocIndex = 0
	}
}

// query returns options for a read of the job, blocking on index when it
// is not zero.
func (w *jobWaiter) query(ctx context.Context, index uint64) *api.QueryOptions {
	return (&api.QueryOptions{Namespace: w.namespace, WaitIndex: index, WaitTime: w.evalMonitor.wait}).WithContext(ctx)
}

// pace waits before the next query when the agent answered without an
// index, so that its queries cannot block.
func (w *jobWaiter) pace(ctx context.Context, qm *api.QueryMeta) error {
	if qm.LastIndex != 0 {
		return nil
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(monitorPollInterval):
		return nil
	}
}

// pendingEvals reports whether an evaluation of this instance of the job
// (created at jobCreateIndex or later) is not terminal yet, blocking on
// index when it is not zero.
func (w *jobWaiter) pendingEvals(ctx context.Context, jobCreateIndex, index uint64) (bool, uint64, error) {
	q := w.query(ctx, index)
	evals, qm, err := w.client.Jobs().Evaluations(w.jobID, q)
	if err != nil {
		return false, 0, err
	}
	if index != 0 {
		if err := w.pace(ctx, qm); err != nil {
			return false, 0, err
		}
	}
	for _, e := range evals {
		if e.CreateIndex >= jobCreateIndex && !evalTerminal(e.Status) {
			return true, qm.LastIndex, nil
		}
	}
	return false, qm.LastIndex, nil
}

// latestAllocs keeps, of each allocation slot, the newest allocation: a
// replacement supersedes the allocation it reschedules, and a new run of
// the job the old one's. A batch slot is the allocation's name; a
// sysbatch job has one slot of each name per node.
func latestAllocs(allocs []*api.AllocationListStub) []*api.AllocationListStub {
	bySlot := map[string]*api.AllocationListStub{}
	for _, a := range allocs {
		slot := a.Name
		if a.JobType == "sysbatch" {
			slot += "@" + a.NodeID
		}
		if cur, ok := bySlot[slot]; !ok || a.CreateIndex > cur.CreateIndex {
			bySlot[slot] = a
		}
	}
	latest := make([]*api.AllocationListStub, 0, len(bySlot))
	for _, a := range bySlot {
		latest = append(latest, a)
	}
	sortAllocs(latest)
	return latest
}

func sortAllocs(allocs []*api.AllocationListStub) {
	slices.SortFunc(allocs, func(a, b *api.AllocationListStub) int {
		if a.CreateIndex != b.CreateIndex {
			return cmp.Compare(a.CreateIndex, b.CreateIndex)
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

// skipSuperseded marks the allocations that had ended and been replaced
// before the wait began: their ends are history, not news.
func (w *jobWaiter) skipSuperseded(allocs, latest []*api.AllocationListStub) {
	current := map[string]bool{}
	for _, a := range latest {
		current[a.ID] = true
	}
	for _, a := range allocs {
		if !current[a.ID] && outcomeOf(a) != outcomeRunning {
			w.printed[a.ID] = true
		}
	}
}

// sayIfAlreadyFinished explains a wait that ends at once: the submission
// changed nothing, so the scheduler started nothing, and the job's
// allocations had all ended before. The server's warning, printed above,
// already says why nothing started; this line only introduces the ends.
func (w *jobWaiter) sayIfAlreadyFinished(latest []*api.AllocationListStub) {
	if len(latest) == 0 || !allEnded(latest) {
		return
	}
	for _, a := range latest {
		if a.CreateIndex >= w.sinceIndex {
			return
		}
	}
	w.event("Job %q had already finished; its allocations ended as follows", w.jobID)
}

// reportEnds prints, oldest first, the allocations that have ended and
// were not printed before.
func (w *jobWaiter) reportEnds(allocs []*api.AllocationListStub) {
	ended := slices.Clone(allocs)
	sortAllocs(ended)
	for _, a := range ended {
		o := outcomeOf(a)
		if o == outcomeRunning || w.printed[a.ID] {
			continue
		}
		w.printed[a.ID] = true
		line := fmt.Sprintf("Allocation %q %s", w.id(a.ID), o)
		if why := endReason(a, o); why != "" {
			line += ": " + why
		}
		w.event("%s", line)
	}
}

func allEnded(allocs []*api.AllocationListStub) bool {
	for _, a := range allocs {
		if outcomeOf(a) == outcomeRunning {
			return false
		}
	}
	return true
}

// The client descriptions of an allocation that a deadline stopped and
// nothing else went wrong with: the group's (or the allocation's) and a
// task's own.
const (
	allocTimeoutDescription = "allocation exceeded max_run_duration"
	taskTimeoutDescription  = "task exceeded max_run_duration"
)

// outcomeOf says how an allocation ended; outcomeRunning while it has
// not. A deadline decides over the client status, since
// max_run_outcome = "failed" turns a timeout into a failure, as long as
// the deadline is all that happened: when it passed while a task was
// failing (the description then names the failure, "allocation exceeded
// max_run_duration while task ... was failing: ..."), or a task failed
// besides, the allocation failed.
func outcomeOf(a *api.AllocationListStub) allocOutcome {
	switch a.ClientStatus {
	case api.AllocClientStatusComplete, api.AllocClientStatusFailed, api.AllocClientStatusLost:
	default:
		return outcomeRunning
	}
	timeoutOnly := a.ClientDescription == allocTimeoutDescription || a.ClientDescription == taskTimeoutDescription
	if (a.MaxRunExceeded || taskDeadlineExceeded(a)) && timeoutOnly {
		return outcomeTimedOut
	}
	switch {
	case a.ClientStatus != api.AllocClientStatusComplete:
		return outcomeFailed
	case a.DesiredStatus != api.AllocDesiredStatusRun:
		// Killed because it was stopped (job stop, alloc stop, a node
		// drain), not because its tasks were done.
		return outcomeStopped
	}
	return outcomeComplete
}

func taskDeadlineExceeded(a *api.AllocationListStub) bool {
	for _, ts := range a.TaskStates {
		if ts != nil && ts.MaxRunExceeded {
			return true
		}
	}
	return false
}

// endReason is what the user needs to know about an allocation's end
// beyond its outcome: the deadline that stopped it, the tasks that
// failed and how, or why it was stopped.
func endReason(a *api.AllocationListStub, o allocOutcome) string {
	switch o {
	case outcomeTimedOut:
		return fmt.Sprintf("%s (client status %s)", a.ClientDescription, a.ClientStatus)
	case outcomeStopped:
		return a.DesiredDescription
	case outcomeFailed:
		var parts []string
		if a.ClientDescription != "" {
			parts = append(parts, a.ClientDescription)
		}
		return strings.Join(append(parts, failedTasks(a)...), "; ")
	}
	return ""
}

// failedTasks describes each failed task by its last termination or,
// without one, its last event.
func failedTasks(a *api.AllocationListStub) []string {
	names := make([]string, 0, len(a.TaskStates))
	for name, ts := range a.TaskStates {
		if ts != nil && ts.Failed {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	out := make([]string, 0, len(names))
	for _, name := range names {
		if e := lastTaskEvent(a.TaskStates[name].Events); e != nil {
			out = append(out, fmt.Sprintf("task %q: %s", name, eventText(e)))
		} else {
			out = append(out, fmt.Sprintf("task %q failed", name))
		}
	}
	return out
}

func lastTaskEvent(events []*api.TaskEvent) *api.TaskEvent {
	var last, terminated *api.TaskEvent
	for _, e := range events {
		switch {
		case e == nil:
		case e.Type == "Terminated":
			terminated, last = e, e
		default:
			last = e
		}
	}
	if terminated != nil {
		return terminated
	}
	return last
}

func eventText(e *api.TaskEvent) string {
	if e.DisplayMessage != "" {
		return e.DisplayMessage
	}
	if e.Type == "Terminated" {
		return fmt.Sprintf("Exit Code: %d", e.ExitCode)
	}
	return e.Type
}

// finish prints how the job ended and returns the exit code: a failure
// (or a stop) over a timeout, a timeout over success.
func (w *jobWaiter) finish(latest []*api.AllocationListStub) int {
	counts := map[allocOutcome]int{}
	for _, a := range latest {
		counts[outcomeOf(a)]++
	}
	if len(latest) == 0 {
		w.headline("Job %q finished without allocations", w.jobID)
		return exitOK
	}
	var parts []string
	for _, o := range []allocOutcome{outcomeComplete, outcomeTimedOut, outcomeFailed, outcomeStopped} {
		if n := counts[o]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, o))
		}
	}
	noun := "allocations"
	if len(latest) == 1 {
		noun = "allocation"
	}
	w.headline("Job %q finished: %d %s, %s", w.jobID, len(latest), noun, strings.Join(parts, ", "))
	switch {
	case counts[outcomeFailed] > 0 || counts[outcomeStopped] > 0:
		return exitError
	case counts[outcomeTimedOut] > 0:
		return exitDeadline
	}
	return exitOK
}

// stopped reports why the wait ended before the job did, and returns its
// exit code.
func (w *jobWaiter) stopped(ctx context.Context, what string, err error) int {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		w.headline("Stopped waiting at -wait-timeout: job %q goes on", w.jobID)
		return exitWaitTimeout
	case ctx.Err() != nil:
		w.headline("Stopped waiting: job %q goes on", w.jobID)
		return exitInterrupted
	case api.IsNotFound(err):
		return w.purged()
	default:
		w.ui.Error(apiErrorLine(w.client, what, err))
	}
	return exitError
}

func (w *jobWaiter) purged() int {
	w.ui.Error(fmt.Sprintf("Job %q was purged while waiting for it", w.jobID))
	return exitError
}
