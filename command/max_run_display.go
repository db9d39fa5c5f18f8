package command

import (
	"time"

	"github.com/drover-io/drover/api"
)

// maxRunExceededDescription is the client description of an allocation
// that max_run_duration stopped.
const maxRunExceededDescription = "allocation exceeded max_run_duration"

// maxRunRows are alloc status's rows for an allocation whose group has a
// max_run_duration: the budget, the deadline (absolute, and relative to
// now) and the time left of the budget; none for an allocation without
// one. They stay after the allocation ended, so that one can tell whether
// and when the deadline stopped it.
func maxRunRows(alloc *api.Allocation, now time.Time) []string {
	if alloc.MaxRunDeadline == 0 {
		return nil
	}
	deadline := time.Unix(0, alloc.MaxRunDeadline)
	return []string{
		"Max Run Duration|" + formatDuration(allocMaxRunDuration(alloc)),
		"Deadline|" + formatTime(deadline) + " (" + prettyTimeDiff(deadline, now) + ")",
		"Time Left|" + timeLeftText(alloc, deadline, now),
	}
}

// allocMaxRunDuration is the budget of the allocation's group: from the
// job version the allocation runs, else what its deadline implies.
func allocMaxRunDuration(alloc *api.Allocation) time.Duration {
	if alloc.Job != nil {
		for _, tg := range alloc.Job.TaskGroups {
			if tg != nil && deref(tg.Name) == alloc.TaskGroup && tg.MaxRunDuration != nil {
				return *tg.MaxRunDuration
			}
		}
	}
	return time.Duration(alloc.MaxRunDeadline - alloc.CreateTime)
}

// timeLeftText says how much of the budget is left: "4s" while the
// allocation runs, "none (exceeded 2s ago)" once the deadline has passed
// on it, and "none (allocation complete)" for one that ended before its
// deadline.
func timeLeftText(alloc *api.Allocation, deadline, now time.Time) string {
	left := deadline.Sub(now)
	exceeded := alloc.ClientDescription == maxRunExceededDescription
	switch {
	case exceeded && left > 0:
		// The deadline is still to come by this machine's clock, which
		// is behind the client's.
		return "none (exceeded)"
	case exceeded || (left <= 0 && !allocEnded(alloc)):
		return "none (exceeded " + prettyTimeDiff(deadline, now) + ")"
	case allocEnded(alloc):
		return "none (allocation " + alloc.ClientStatus + ")"
	}
	return formatDuration(left)
}

// allocEnded reports whether the client reports the allocation as ended.
func allocEnded(alloc *api.Allocation) bool {
	switch alloc.ClientStatus {
	case api.AllocClientStatusComplete, api.AllocClientStatusFailed, api.AllocClientStatusLost:
		return true
	}
	return false
}

// deadlineText shows a max_run_duration deadline in a table: relative
// ("in 7s", "3s ago"), or absolute with -verbose; "-" for an allocation
// without one.
func deadlineText(deadline int64, verbose bool, now time.Time) string {
	if deadline == 0 {
		return "-"
	}
	return when(deadline, verbose, now)
}
