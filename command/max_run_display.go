package command

import (
	"time"

	"github.com/drover-io/drover/api"
)

// maxRunRows are alloc status's rows for an allocation whose group has a
// max_run_duration: the budget, the deadline (absolute, and relative to
// now) and the time left of the budget; none for an allocation without
// one. They stay after the allocation ended, so that one can tell whether
// and when the deadline stopped it. Budget, deadline and whether the
// deadline stopped the allocation all come from the servers (the model's
// one definition of the deadline), never worked out here.
func maxRunRows(alloc *api.Allocation, now time.Time) []string {
	if alloc.MaxRunDeadline == 0 {
		return nil
	}
	deadline := time.Unix(0, alloc.MaxRunDeadline)
	return []string{
		"Max Run Duration|" + formatDuration(alloc.MaxRunDuration),
		"Deadline|" + formatTime(deadline) + " (" + prettyTimeDiff(deadline, now) + ")",
		"Time Left|" + timeLeftText(alloc, deadline, now),
	}
}

// timeLeftText says how much of the budget is left: "4s" while the
// allocation runs, "none (exceeded 2s ago)" once the deadline has passed
// on it, and "none (allocation complete)" for one that ended before its
// deadline.
func timeLeftText(alloc *api.Allocation, deadline, now time.Time) string {
	left := deadline.Sub(now)
	exceeded := alloc.MaxRunExceeded
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
