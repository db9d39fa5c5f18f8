package structs

import (
	"fmt"
	"time"
)

// JobDeadline is Drover's finish-by: when a job's allocations must be
// done. Exactly one field is set.
type JobDeadline struct {
	// At is the instant, in Unix nanoseconds.
	At int64 `json:",omitempty"`
	// AfterLaunch is, for a job that launches children (periodic or
	// parameterized), the time after each launch by which that child must
	// be done: the launch sets the child's At to its SubmitTime plus this.
	AfterLaunch time.Duration `json:",omitempty"`
}

// FinishBy returns the instant the job's allocations must be done by; ok
// is false when the job has none (no Deadline, or one only its children
// resolve).
func (j *Job) FinishBy() (at time.Time, ok bool) {
	if j == nil || j.Deadline == nil || j.Deadline.At <= 0 {
		return time.Time{}, false
	}
	return time.Unix(0, j.Deadline.At), true
}

// ResolveLaunchDeadline sets the finish-by instant of a child its parent
// launched (a periodic launch or a dispatch) at launched, Unix
// nanoseconds: the parent's AfterLaunch from then. An instant the parent
// gave is kept as it is, and so is the duration of a child that launches
// children of its own (a dispatch of a periodic parameterized job).
func (j *Job) ResolveLaunchDeadline(launched int64) {
	d := j.Deadline
	if d == nil || d.AfterLaunch <= 0 || j.LaunchesChildren() {
		return
	}
	at := launched + int64(d.AfterLaunch)
	if at < launched { // beyond int64 nanoseconds: never reached
		j.Deadline = nil
		return
	}
	j.Deadline = &JobDeadline{At: at}
}

// PlacementGiveUpReasonJobBudget is why a placement is given up when
// the job's max_run_duration is spent: it could only be killed at once.
const PlacementGiveUpReasonJobBudget = "job max_run_duration spent"

// PlacementGiveUpReasonFinishBy is why a placement is given up when it
// cannot finish by the job's deadline; the instant follows.
const PlacementGiveUpReasonFinishBy = "cannot finish by"

// Placement is what the scheduler learns, before it places an allocation
// of a group, about its budget at now.
type Placement struct {
	// MaxRun is the budget the allocation would have if created at now.
	MaxRun MaxRun
	// GiveUp, when not empty, is why the placement is not started: a
	// job budget already spent, or a deadline it cannot finish by. Time
	// only moves on, so the placement is given up, not retried.
	GiveUp string
}

// PlaceAt decides whether an allocation of group tg of the job may start
// at now, and with which budget:
//
//   - a job whose own max_run_duration has passed starts nothing;
//   - a job with a finish-by instant starts an allocation only when its
//     budget (group, dispatch or job, the earliest) ends by that instant;
//     an allocation without any budget never would;
//   - with the group's min_run_duration, one whose budget ends later
//     starts all the same, cut to the instant (scope deadline), as long as
//     min_run_duration fits before it;
//   - min_run_duration also asks that much of the job's budget left.
func (j *Job) PlaceAt(tg *TaskGroup, now time.Time) Placement {
	a := &Allocation{Job: j, TaskGroup: tg.Name, CreateTime: now.UnixNano()}
	p := Placement{MaxRun: a.MaxRun()}
	if !AllowsMaxRunDuration(j.Type) {
		return p
	}
	minRun := time.Duration(0)
	if tg.MinRunDuration != nil && *tg.MinRunDuration > 0 {
		minRun = *tg.MinRunDuration
	}
	switch job := j.jobMaxRun(); {
	case job.Passed(now):
		p.GiveUp = PlacementGiveUpReasonJobBudget
		return p
	case job.HasDeadline() && job.Remaining(now) < minRun:
		p.GiveUp = fmt.Sprintf("job max_run_duration has %s left, less than min_run_duration %s", job.Remaining(now), minRun)
		return p
	}
	at, ok := j.FinishBy()
	if !ok {
		return p
	}
	own := earliestMaxRun(a.groupMaxRun(tg), j.jobMaxRun())
	if own.HasDeadline() && !own.Deadline.After(at) {
		return p
	}
	if minRun > 0 && !now.Add(minRun).After(at) {
		return p
	}
	p.GiveUp = FinishByReason(at)
	return p
}

// FinishByReason is the reason a placement that cannot finish by at is
// given up for: "cannot finish by <RFC 3339 instant>".
func FinishByReason(at time.Time) string {
	return fmt.Sprintf("%s %s", PlacementGiveUpReasonFinishBy, at.UTC().Format(time.RFC3339Nano))
}
