package e2e

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// exceededDescription is the allocation's client description, and the
// Killing events' display message, when max_run_duration stopped it.
const exceededDescription = "allocation exceeded max_run_duration"

// deadlineOf is the allocation's max_run_duration deadline as the API
// reports it, checked against CreateTime plus the budget.
func deadlineOf(t *testing.T, alloc *api.Allocation, budget time.Duration) time.Time {
	t.Helper()
	must.Eq(t, alloc.CreateTime+int64(budget), alloc.MaxRunDeadline,
		must.Sprintf("MaxRunDeadline of %s must be CreateTime + %s", alloc.ID, budget))
	return unixTime(alloc.MaxRunDeadline)
}

// task returns the allocation's state of the named task.
func task(t *testing.T, alloc *api.Allocation, name string) *api.TaskState {
	t.Helper()
	ts := alloc.TaskStates[name]
	must.NotNil(t, ts, must.Sprintf("alloc %s has no state for task %q", alloc.ID, name))
	return ts
}

// events lists the types of a task's events, oldest first.
func events(ts *api.TaskState) []string {
	var out []string
	for _, ev := range ts.Events {
		out = append(out, ev.Type)
	}
	return out
}

// event returns the task's first event of type typ, or nil.
func event(ts *api.TaskState, typ string) *api.TaskEvent {
	i := slices.IndexFunc(ts.Events, func(ev *api.TaskEvent) bool { return ev.Type == typ })
	if i < 0 {
		return nil
	}
	return ts.Events[i]
}

// mustBeKilledByDeadline checks that max_run_duration ended the task: a
// Killing event with the reason, and the task dead.
func mustBeKilledByDeadline(t *testing.T, alloc *api.Allocation, name string) {
	t.Helper()
	ts := task(t, alloc, name)
	must.Eq(t, api.TaskStateDead, ts.State)
	killing := event(ts, "Killing")
	must.NotNil(t, killing, must.Sprintf("task %q has no Killing event: %v", name, events(ts)))
	must.Eq(t, exceededDescription, killing.DisplayMessage)
	must.Eq(t, 0, ts.Restarts, must.Sprint("the restart policy must not apply to a deadline kill"))
}

// mustEndByDeadline checks that the allocation ended because of its
// deadline.
func mustEndByDeadline(t *testing.T, alloc *api.Allocation) {
	t.Helper()
	must.Eq(t, api.AllocClientStatusComplete, alloc.ClientStatus)
	must.Eq(t, exceededDescription, alloc.ClientDescription)
}

// mustTimedOutAt checks that the allocation ended because of its
// deadline, that max_run_duration killed its task name, and that the task
// finished in [from, from+within].
func mustTimedOutAt(t *testing.T, alloc *api.Allocation, name string, from time.Time, within time.Duration) {
	t.Helper()
	mustEndByDeadline(t, alloc)
	mustBeKilledByDeadline(t, alloc, name)
	mustFinishWithin(t, task(t, alloc, name), from, within)
}

// mustFinishWithin checks that the task finished in [from, from+within].
func mustFinishWithin(t *testing.T, ts *api.TaskState, from time.Time, within time.Duration) {
	t.Helper()
	late := ts.FinishedAt.Sub(from)
	t.Logf("task finished %s after %s", late, from.Format(time.RFC3339Nano))
	must.True(t, late >= 0 && late <= within, must.Sprintf(
		"task finished at %s, %s after %s; want within [0, %s]",
		ts.FinishedAt.Format(time.RFC3339Nano), late, from.Format(time.RFC3339Nano), within))
}

// lastFinished is when the allocation's last task finished.
func lastFinished(alloc *api.Allocation) time.Time {
	var last time.Time
	for _, ts := range alloc.TaskStates {
		if ts.FinishedAt.After(last) {
			last = ts.FinishedAt
		}
	}
	return last
}

// terminal is an allocation condition: the client reports it ended.
func terminal(alloc *api.Allocation) error {
	switch alloc.ClientStatus {
	case api.AllocClientStatusComplete, api.AllocClientStatusFailed, api.AllocClientStatusLost:
		return nil
	}
	return fmt.Errorf("%w: client status %s", errNotYet, alloc.ClientStatus)
}
