package command

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/drover-io/drover/api"
)

// AllocStatusCommand shows one allocation and its tasks.
type AllocStatusCommand struct{ Meta }

func (c *AllocStatusCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover alloc status [options] <alloc>

  Shows an allocation, named by its ID or a unique prefix of one: where it
  runs, what its client and the servers say of it, and for each task its
  state and its most recent events, newest first.

  An allocation whose group has a max_run_duration also shows, while it
  runs and after it ended:

    Max Run Duration  the group's budget, such as 10s
    Deadline          when the budget ends (CreateTime + max_run_duration),
                      to the millisecond, and relative: "... (in 4s)",
                      "... (2s ago)", or "... (not reached: allocation
                      failed)" for one that ended before it
    Time Left         what is left of the budget, or "none (exceeded 2s
                      ago)" once the deadline passed; rounded as the
                      relative deadline is, from the same moment

  A task with a max_run_duration of its own (or in a group with one) shows
  the same three rows among its task's, for the deadline the task meets
  first; "Max Run Duration" says whose budget it is: "5m (task)" or
  "10s (group)". A task that ended before that deadline shows it "not
  reached: task dead", even when the deadline later stopped the
  allocation. A task killed at its own deadline gets the Killing event
  "task exceeded max_run_duration". The tasks' Started At and Finished At
  and their events show to the millisecond, to be read against the
  deadline.

  An allocation stopped at its deadline ends "complete" with the client
  description "allocation exceeded max_run_duration"; its client status
  shows as "complete (max_run_duration)". The allocation's
  JSON (-json) carries the deadline as MaxRunDeadline, in Unix nanoseconds,
  the budget as MaxRunDuration, in nanoseconds, and MaxRunExceeded once the
  deadline has stopped the allocation.
` + clientOptionsHelp + `
Alloc Status Options:

  -short
    Leave out the tasks' events.

  -json
    Print the allocation as JSON.

  -verbose
    Show full IDs and absolute times (the deadline and the tasks' start
    and end show both forms anyway).
`)
}

func (c *AllocStatusCommand) Synopsis() string {
	return "Display allocation status information and metadata"
}

func (c *AllocStatusCommand) Run(args []string) int {
	var short, asJSON, verbose bool
	fs := c.ClientFlagSet("alloc status")
	fs.BoolVar(&short, "short", false, "")
	fs.BoolVar(&asJSON, "json", false, "")
	fs.BoolVar(&verbose, "verbose", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 {
		return usageError(c.Ui, "alloc status", "This command takes one argument: <alloc>")
	}
	_, alloc, ok := c.clientAndAlloc(fs.Arg(0))
	if !ok {
		return exitError
	}
	if asJSON {
		out, err := json.MarshalIndent(alloc, "", "    ")
		if err != nil {
			c.Ui.Error(fmt.Sprintf("Error encoding allocation: %v", err))
			return exitError
		}
		c.Ui.Output(string(out))
		return exitOK
	}
	c.Ui.Output(formatAllocStatus(alloc, short, verbose, time.Now()))
	return exitOK
}

// formatAllocStatus is what alloc status prints, in Nomad's layout.
func formatAllocStatus(alloc *api.Allocation, short, verbose bool, now time.Time) string {
	var b strings.Builder
	b.WriteString(formatKV(allocRows(alloc, verbose, now)))
	if short {
		return b.String()
	}
	b.WriteString(allocAddresses(alloc))
	for _, name := range allocTaskNames(alloc) {
		ts := alloc.TaskStates[name]
		if ts == nil {
			continue
		}
		fmt.Fprintf(&b, "\n\nTask %q is %q\n", name, ts.State)
		b.WriteString("Task Events:\n")
		b.WriteString(formatKV(append(taskStateRows(ts, verbose, now), taskMaxRunRows(alloc, ts, now)...)))
		b.WriteString("\n\nRecent Events:\n")
		b.WriteString(taskEventTable(ts.Events))
	}
	return b.String()
}

func allocRows(alloc *api.Allocation, verbose bool, now time.Time) []string {
	rows := []string{
		"ID|" + shortID(alloc.ID, verbose),
		"Eval ID|" + shortID(alloc.EvalID, verbose),
		"Name|" + alloc.Name,
		"Node ID|" + shortID(alloc.NodeID, verbose),
		"Node Name|" + orNone(alloc.NodeName),
		"Job ID|" + alloc.JobID,
	}
	if alloc.Job != nil && alloc.Job.Version != nil {
		rows = append(rows, fmt.Sprintf("Job Version|%d", *alloc.Job.Version))
	}
	rows = append(rows,
		"Client Status|"+clientStatusText(alloc.ClientStatus, alloc.MaxRunExceeded),
		"Client Description|"+orNone(alloc.ClientDescription),
		"Desired Status|"+alloc.DesiredStatus,
		"Desired Description|"+orNone(alloc.DesiredDescription),
		"Created|"+when(alloc.CreateTime, verbose, now),
		"Modified|"+when(alloc.ModifyTime, verbose, now),
	)
	rows = append(rows, maxRunRows(alloc, now)...)
	if alloc.NextAllocation != "" {
		rows = append(rows, "Replacement Alloc ID|"+shortID(alloc.NextAllocation, verbose))
	}
	if alloc.PreviousAllocation != "" {
		rows = append(rows, "Previous Alloc ID|"+shortID(alloc.PreviousAllocation, verbose))
	}
	return rows
}

func taskStateRows(ts *api.TaskState, verbose bool, now time.Time) []string {
	at := func(t time.Time) string {
		if t.IsZero() {
			return "N/A"
		}
		if verbose {
			return formatTime(t)
		}
		return prettyTimeDiff(t, now)
	}
	// When the task started and finished, to the millisecond and
	// relative to now: they are read against the deadline rows.
	precise := func(t time.Time) string {
		if t.IsZero() {
			return "N/A"
		}
		return formatTimeMillis(t) + " (" + prettyTimeDiff(t, now) + ")"
	}
	return []string{
		"Started At|" + precise(ts.StartedAt),
		"Finished At|" + precise(ts.FinishedAt),
		fmt.Sprintf("Total Restarts|%d", ts.Restarts),
		"Last Restart|" + at(ts.LastRestart),
	}
}

// taskEventTable lists a task's events, newest first.
func taskEventTable(events []*api.TaskEvent) string {
	events = slices.Clone(events)
	slices.SortStableFunc(events, func(a, b *api.TaskEvent) int { return cmp.Compare(b.Time, a.Time) })
	rows := []string{"Time|Type|Description"}
	for _, ev := range events {
		if ev == nil {
			continue
		}
		rows = append(rows, fmt.Sprintf("%s|%s|%s", eventTime(ev.Time), ev.Type, oneLineText(taskEventDescription(ev))))
	}
	return formatList(rows)
}

// eventTime is an event's time to the millisecond, which a Killing event's
// is read against the deadline; "<none>" for an event without one.
func eventTime(ns int64) string {
	if ns == 0 {
		return "<none>"
	}
	return formatTimeMillis(time.Unix(0, ns))
}

// taskEventDescription says what an event means: its display message, or,
// from an agent that sent none, what its fields tell.
func taskEventDescription(ev *api.TaskEvent) string {
	if ev.DisplayMessage != "" {
		return ev.DisplayMessage
	}
	switch {
	case ev.Type == "Terminated":
		return fmt.Sprintf("Exit Code: %d", ev.ExitCode)
	case ev.DriverError != "":
		return ev.DriverError
	case ev.SetupError != "":
		return ev.SetupError
	case ev.KillReason != "":
		return ev.KillReason
	case ev.RestartReason != "":
		return ev.RestartReason
	}
	return ev.Message
}

// oneLineText keeps a table row on one line and free of the column
// separator.
func oneLineText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", "/")
}
