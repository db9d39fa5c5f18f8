package command

import (
	"fmt"
	"strings"
	"time"

	"github.com/drover-io/drover/api"
)

// Exit codes of job plan: whether the plan creates or destroys allocations,
// so that scripts can tell a no-op from a change.
const (
	planExitNoChange = 0
	planExitChange   = 1
	planExitError    = 255
)

// JobPlanCommand shows what running a jobspec would do: how the job differs
// from the registered one and what the scheduler would do about it, without
// changing anything.
type JobPlanCommand struct{ Meta }

func (c *JobPlanCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover job plan [options] <path>

  Parses the jobspec at path ("-" reads stdin) and asks the cluster what
  "drover job run" would do with it: how the job differs from the one
  registered, and which allocations the scheduler would place, update in
  place, replace or stop. Nothing is changed: the scheduler runs on a
  snapshot of the cluster's state and its plan is discarded.

  A change of a group's max_run_duration alone is an in-place update: the
  running allocations keep running, under the new bound.

  The job modify index printed at the end can be given to
  "drover job run -check-index" so that the job is only submitted if nobody
  changed it since the plan.

  Exit codes: 0 when no allocation would be created or destroyed, 1 when
  some would be (placed, stopped, migrated or replaced), 255 on an error.
` + clientOptionsHelp + `
Plan Options:

  -diff=<bool>
    Show how the job differs from the registered one. Defaults to true.

  -verbose
    Show the fields of added and removed groups and tasks, and the
    unchanged parts of the job, too.

  -var 'key=value'
    Set an input variable of the jobspec; may be repeated.

  -var-file=path
    Read input variables from an HCL file; may be repeated.
`)
}

func (c *JobPlanCommand) Synopsis() string {
	return "Dry-run a job update to see what the scheduler would do"
}

func (c *JobPlanCommand) Run(args []string) int {
	var jf jobspecFlags
	diff, verbose := true, false
	fs := c.ClientFlagSet("job plan")
	fs.BoolVar(&diff, "diff", true, "")
	fs.BoolVar(&verbose, "verbose", false, "")
	fs.Var(&jf.vars, "var", "")
	fs.Var(&jf.varFiles, "var-file", "")
	if err := fs.Parse(args); err != nil {
		return planExitError
	}
	if fs.NArg() != 1 {
		c.Ui.Error("This command takes one argument: <path>")
		c.Ui.Error(`For additional help try 'drover job plan -h'`)
		return planExitError
	}
	path := fs.Arg(0)
	job, err := parseJobspec(path, c.Stdin, jf)
	if err != nil {
		c.Ui.Error(err.Error())
		return planExitError
	}
	client, err := c.Client()
	if err != nil {
		c.Ui.Error(fmt.Sprintf("Error initializing client: %v", err))
		return planExitError
	}
	resp, _, err := client.Jobs().Plan(job, diff, nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "during plan", err))
		return planExitError
	}

	if resp.Warnings != "" {
		c.Ui.Output(jobWarnings(resp.Warnings))
	}
	if diff && resp.Diff != nil {
		c.Ui.Output(formatJobDiff(resp.Diff, verbose))
	}
	c.Ui.Output(formatDryRun(resp, time.Now()))
	// A suggestion is advice: a plan does not fail for want of one.
	if suggestions, err := planBudgetSuggestions(client, job); err == nil && suggestions != "" {
		c.Ui.Output(suggestions)
	}
	c.Ui.Output(formatCheckIndex(resp.JobModifyIndex, path))
	return planExitCode(resp)
}

// planExitCode says whether the plan creates or destroys allocations.
func planExitCode(resp *api.JobPlanResponse) int {
	if resp.Annotations == nil {
		return planExitNoChange
	}
	for _, u := range resp.Annotations.DesiredTGUpdates {
		if u != nil && u.Place+u.Stop+u.Migrate+u.DestructiveUpdate+u.Canary > 0 {
			return planExitChange
		}
	}
	return planExitNoChange
}

// formatDryRun reports what the scheduler would do: whether every
// allocation fits and, if not, why not; and when a periodic job would next
// launch.
func formatDryRun(resp *api.JobPlanResponse, now time.Time) string {
	var b strings.Builder
	b.WriteString("Scheduler dry-run:\n")
	if len(resp.FailedTGAllocs) == 0 {
		b.WriteString("- All tasks successfully allocated.\n")
	} else {
		b.WriteString("- WARNING: Failed to place all allocations.\n")
		for _, f := range placementFailures(resp.FailedTGAllocs, false) {
			b.WriteString("  " + f.Header + "\n")
			for _, r := range f.Reasons {
				b.WriteString("    * " + r + "\n")
			}
		}
		if blockedEval(resp.CreatedEvals) {
			b.WriteString("  The rest would wait in a blocked evaluation until capacity frees up.\n")
		}
	}
	if !resp.NextPeriodicLaunch.IsZero() {
		next := resp.NextPeriodicLaunch
		fmt.Fprintf(&b, "- If submitted now, the next periodic launch would be at %s (%s from now).\n",
			formatTime(next), formatDuration(next.Sub(now)))
	}
	return b.String()
}

func blockedEval(evals []*api.Evaluation) bool {
	for _, e := range evals {
		if e != nil && e.Status == api.EvalStatusBlocked {
			return true
		}
	}
	return false
}

// formatCheckIndex tells how to submit exactly the planned job.
func formatCheckIndex(index uint64, path string) string {
	return fmt.Sprintf(`Job Modify Index: %d
To submit the job with version verification run:

drover job run -check-index %d %s

With -check-index the job is submitted only if its modify index on the
server is still %d. If it is not, someone changed the job after this plan
and the plan may no longer describe what the run would do.`, index, index, shellWord(path), index)
}

// shellWord quotes s for a shell when it holds characters a shell would
// split or interpret.
func shellWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
