package structs

import (
	"math"
	"slices"
	"time"
)

// EvalStatusDescPendingTimeout is the StatusDescription of a blocked
// evaluation whose placements were all given up for max_pending_duration.
const EvalStatusDescPendingTimeout = "exceeded max_pending_duration"

// MaxPendingBudget is the group's max_pending_duration (its own, or the
// job's that canonicalisation copied in), zero when it has none.
func (tg *TaskGroup) MaxPendingBudget() time.Duration {
	if tg == nil || tg.MaxPendingDuration == nil || *tg.MaxPendingDuration <= 0 {
		return 0
	}
	return *tg.MaxPendingDuration
}

// PendingStart is the instant a blocked evaluation's placements were
// asked for: PendingSince, or the evaluation's own CreateTime when it has
// none (state written before the field).
func (e *Evaluation) PendingStart() time.Time {
	if e.PendingSince > 0 {
		return time.Unix(0, e.PendingSince)
	}
	return time.Unix(0, e.CreateTime)
}

// PendingDeadlines returns, for each group of job whose placements the
// blocked evaluation e still waits for and that has a
// max_pending_duration, the instant they are given up. A group whose
// deadline is beyond what Unix nanoseconds hold has none.
func (e *Evaluation) PendingDeadlines(job *Job) map[string]time.Time {
	if e == nil || job == nil || e.Status != EvalStatusBlocked {
		return nil
	}
	start := e.PendingStart().UnixNano()
	out := map[string]time.Time{}
	for name, queued := range e.QueuedAllocations {
		budget := job.LookupTaskGroup(name).MaxPendingBudget()
		if queued <= 0 || budget <= 0 || int64(budget) > math.MaxInt64-start {
			continue
		}
		out[name] = time.Unix(0, start+int64(budget))
	}
	return out
}

// NextPendingDeadline is the earliest of PendingDeadlines; false when
// there is none.
func (e *Evaluation) NextPendingDeadline(job *Job) (time.Time, bool) {
	var next time.Time
	for _, at := range e.PendingDeadlines(job) {
		if next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return next, !next.IsZero()
}

// ExpirePending gives up the placements of every group whose deadline is
// at or before now: it returns a copy of the blocked evaluation with
// their count moved from QueuedAllocations to PendingExpired, and,
// when no group waits any longer, cancelled with
// EvalStatusDescPendingTimeout. It returns nil when no deadline has
// passed.
func (e *Evaluation) ExpirePending(job *Job, now time.Time) *Evaluation {
	var expired []string
	for name, at := range e.PendingDeadlines(job) {
		if !at.After(now) {
			expired = append(expired, name)
		}
	}
	if len(expired) == 0 {
		return nil
	}
	slices.Sort(expired)
	c := e.Copy()
	if c.PendingExpired == nil {
		c.PendingExpired = map[string]int{}
	}
	for _, name := range expired {
		c.PendingExpired[name] += c.QueuedAllocations[name]
		c.QueuedAllocations[name] = 0
		delete(c.FailedTGAllocs, name)
	}
	c.ModifyTime = now.UnixNano()
	waiting := false
	for _, n := range c.QueuedAllocations {
		waiting = waiting || n > 0
	}
	if !waiting {
		c.Status = EvalStatusCancelled
		c.StatusDescription = EvalStatusDescPendingTimeout
	} else {
		c.StatusDescription = EvalStatusDescPendingTimeout + " for group(s) " + joinQuoted(expired) + "; others wait"
	}
	return c
}

// PendingExpiredNames drops from names, the placements of group a
// scheduler is about to make, the ones the evaluation gave up for
// max_pending_duration: the last of them, as many as it gave up.
func (e *Evaluation) PendingExpiredNames(group string, names []string) []string {
	n := e.PendingExpired[group]
	if n <= 0 {
		return names
	}
	return slices.Clone(names[:max(0, len(names)-n)])
}

func joinQuoted(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += `"` + n + `"`
	}
	return out
}
