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
	left := deadline.Sub(now)
	relative := relativeText(left)
	if clientStatusEnded(alloc.ClientStatus) && !alloc.MaxRunExceeded {
		relative = "not reached: allocation " + alloc.ClientStatus
	}
	budget := exactDuration(alloc.MaxRunDuration)
	switch alloc.MaxRunScope {
	case "allocation":
		budget += " (changed for this allocation)"
	case "dispatch":
		budget += " (set by dispatch)"
	case "job":
		budget += " (the job's max_run_duration, counted from its submission)"
	case "deadline":
		budget += " (cut to the job's deadline)"
	}
	return []string{
		"Max Run Duration|" + budget,
		"Deadline|" + formatTimeMillis(deadline) + " (" + relative + ")",
		"Time Left|" + timeLeftText(alloc, left),
	}
}

// timeLeftText says how much of the budget is left: "4s" while the
// allocation runs, "none (exceeded 2s ago)" once the deadline has passed
// on it, and "none (allocation complete)" for one that ended before its
// deadline. left is the deadline less the now of the Deadline row, so
// that the two rows agree to the digit.
func timeLeftText(alloc *api.Allocation, left time.Duration) string {
	exceeded := alloc.MaxRunExceeded
	switch {
	case exceeded && left > 0:
		// The deadline is still to come by this machine's clock, which
		// is behind the client's.
		return "none (exceeded)"
	case exceeded || (left <= 0 && !clientStatusEnded(alloc.ClientStatus)):
		return "none (exceeded " + relativeText(left) + ")"
	case clientStatusEnded(alloc.ClientStatus):
		return "none (allocation " + alloc.ClientStatus + ")"
	}
	return timeLeft(left)
}

// relativeText says where a moment left away from now lies: "in 4s" or
// "2s ago", rounded as timeLeft rounds, so that a deadline's relative
// time and the Time Left beside it never differ (they once read "in 5s"
// and "6s", two roundings of one moment).
func relativeText(left time.Duration) string {
	if left > 0 {
		return "in " + timeLeft(left)
	}
	return timeLeft(-left) + " ago"
}

// clientStatusEnded reports whether a client status is one of an ended
// allocation.
func clientStatusEnded(status string) bool {
	switch status {
	case api.AllocClientStatusComplete, api.AllocClientStatusFailed, api.AllocClientStatusLost:
		return true
	}
	return false
}

// clientStatusText is an allocation's client status as the CLI shows it:
// marked "(max_run_duration)" when the deadline stopped the allocation, so
// that a timeout never reads as a plain "complete" (or "failed", with
// max_run_outcome = "failed"). Whether it did is the servers' to say
// (MaxRunExceeded).
func clientStatusText(status string, exceeded bool) string {
	if exceeded {
		return status + " (max_run_duration)"
	}
	return status
}

// deadlineText shows a max_run_duration deadline in a table: relative
// ("in 7s", "3s ago"), or absolute with -verbose; "-" for an allocation
// without one, and "not reached" for one that ended before it (a deadline
// still to come would be one that no longer applies).
func deadlineText(deadline int64, status string, exceeded, verbose bool, now time.Time) string {
	switch {
	case deadline == 0:
		return "-"
	case clientStatusEnded(status) && !exceeded:
		return "not reached"
	}
	return when(deadline, verbose, now)
}

// taskMaxRunRows are a task's rows in alloc status when a max_run_duration
// applies to it: the budget whose deadline the task meets first, whose it
// is ("task" for the task's own, "group" for the allocation's), that
// deadline, the time left and, for a task with a max_run_warning, when the
// warning is due or was sent, as the servers give them (the task state's
// MaxRun* fields); none when no budget applies.
//
// The deadline stopped the task only if it was still running then: a task
// that finished before the allocation's deadline (a sibling's sleep of 2 s
// beside a task killed at 10 s) did not reach it, whatever the allocation's
// end.
func taskMaxRunRows(alloc *api.Allocation, ts *api.TaskState, now time.Time) []string {
	if ts.MaxRunDuration == 0 {
		return nil
	}
	rows := []string{"Max Run Duration|" + exactDuration(ts.MaxRunDuration) + " (" + ts.MaxRunScope + ")"}
	if ts.MaxRunDeadline == 0 {
		return append(rows, "Deadline|none yet (counts from the task's start)")
	}
	deadline := time.Unix(0, ts.MaxRunDeadline)
	dead := ts.State == api.TaskStateDead
	exceeded := ts.MaxRunExceeded
	if ts.MaxRunScope != "task" {
		finishedBefore := dead && !ts.FinishedAt.IsZero() && ts.FinishedAt.Before(deadline)
		exceeded = alloc.MaxRunExceeded && !finishedBefore
	}
	left := deadline.Sub(now)
	relative := relativeText(left)
	leftText := timeLeft(left)
	switch {
	case exceeded && left > 0:
		leftText = "none (exceeded)"
	case exceeded || (left <= 0 && !dead):
		leftText = "none (exceeded " + relative + ")"
	case dead:
		relative = "not reached: task dead"
		leftText = "none (task dead)"
	}
	rows = append(rows,
		"Deadline|"+formatTimeMillis(deadline)+" ("+relative+")",
		"Time Left|"+leftText,
	)
	switch {
	case !ts.MaxRunWarnedAt.IsZero():
		rows = append(rows, "Warning|sent "+formatTimeMillis(ts.MaxRunWarnedAt)+" ("+relativeText(ts.MaxRunWarnedAt.Sub(now))+")")
	case ts.MaxRunWarningAt != 0 && !dead && !exceeded:
		at := time.Unix(0, ts.MaxRunWarningAt)
		rows = append(rows, "Warning|due "+formatTimeMillis(at)+" ("+relativeText(at.Sub(now))+")")
	}
	return rows
}

// timeLeft shows what is left of a budget to the second, in every unit
// ("1h30m29s", not "1h30m", next to a budget of 1h30m30s), and under a
// second in milliseconds.
func timeLeft(d time.Duration) string {
	if d > -time.Second && d < time.Second {
		return formatDuration(d)
	}
	return exactDuration(d.Round(time.Second))
}
