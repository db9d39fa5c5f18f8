package command

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// JobAllocsCommand lists the allocations of a job.
type JobAllocsCommand struct{ Meta }

func (c *JobAllocsCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover job allocs [options] <job>

  Lists the allocations of a job, named by its ID or a unique prefix of
  one, newest first.

  When any of them belongs to a batch or sysbatch group with a
  max_run_duration, a Deadline column shows when its budget ends
  (CreateTime + max_run_duration): relative ("in 7s", "3s ago"), or
  absolute with -verbose; "-" for an allocation without one, "not
  reached" for one that ended before it. An allocation the deadline
  stopped shows its status as "complete (max_run_duration)". With -json
  each allocation carries the deadline as MaxRunDeadline, in Unix
  nanoseconds, and MaxRunExceeded once the deadline has stopped it.
` + clientOptionsHelp + `
Job Allocs Options:

  -all
    Also list the allocations of earlier versions of the job that were
    registered under the same ID.

  -json
    Print the allocations as JSON.

  -verbose
    Show full IDs and absolute times, deadlines included.
`)
}

func (c *JobAllocsCommand) Synopsis() string { return "List allocations for a job" }

func (c *JobAllocsCommand) Run(args []string) int {
	var all, asJSON, verbose bool
	fs := c.ClientFlagSet("job allocs")
	fs.BoolVar(&all, "all", false, "")
	fs.BoolVar(&asJSON, "json", false, "")
	fs.BoolVar(&verbose, "verbose", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 {
		return usageError(c.Ui, "job allocs", "This command takes one argument: <job>")
	}
	client, job, ok := c.clientAndJob(fs.Arg(0))
	if !ok {
		return exitError
	}
	allocs, _, err := client.Jobs().Allocations(job.ID, all, nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "querying job allocations", err))
		return exitError
	}
	switch {
	case asJSON:
		out, err := json.MarshalIndent(allocs, "", "    ")
		if err != nil {
			c.Ui.Error(fmt.Sprintf("Error encoding allocations: %v", err))
			return exitError
		}
		c.Ui.Output(string(out))
	case len(allocs) == 0:
		c.Ui.Output(fmt.Sprintf("No allocations placed for job %q", job.ID))
	default:
		c.Ui.Output(allocTable(allocs, verbose, time.Now()))
	}
	return exitOK
}
