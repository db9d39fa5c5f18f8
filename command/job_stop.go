package command

import (
	"fmt"
	"slices"
	"strings"

	"github.com/drover-io/drover/api"
)

// JobStopCommand stops a job: the scheduler stops its allocations. With
// -purge the job is also removed.
type JobStopCommand struct{ Meta }

func (c *JobStopCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover job stop [options] <job>

  Stops a job, given its ID or a unique prefix of one, and follows the
  evaluation that stops its allocations until the scheduler is done. The
  stopped job stays, marked stopped, until it is purged or run again.

  When the argument is a prefix rather than the job's ID, the command asks
  before stopping the job it found.
` + clientOptionsHelp + `
Stop Options:

  -purge
    Also remove the job and its history from the cluster state at once.

  -detach
    Return as soon as the job is stopped, printing the ID of the
    evaluation, instead of following it.

  -yes
    Do not ask for confirmation.

  -verbose
    Print full IDs.
`)
}

func (c *JobStopCommand) Synopsis() string { return "Stop a running job" }

func (c *JobStopCommand) Run(args []string) int {
	var purge, detach, yes, verbose bool
	fs := c.ClientFlagSet("job stop")
	fs.BoolVar(&purge, "purge", false, "")
	fs.BoolVar(&detach, "detach", false, "")
	fs.BoolVar(&yes, "yes", false, "")
	fs.BoolVar(&verbose, "verbose", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 {
		return usageError(c.Ui, "job stop", "This command takes one argument: <job>")
	}
	id := fs.Arg(0)
	client, job, ok := c.clientAndJob(id)
	if !ok {
		return exitError
	}
	if job.ID != id && !yes {
		code, proceed := c.confirm(confirmation{
			question:  fmt.Sprintf("Are you sure you want to stop job %q? [y/N]", job.ID),
			notDone:   "the job was not stopped",
			skipHint:  "use -yes to stop it without asking",
			cancelled: "Cancelling job stop",
		})
		if !proceed {
			return code
		}
	}

	evalID, _, err := client.Jobs().Deregister(job.ID, purge, nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "deregistering job", err))
		return exitError
	}
	if evalID == "" {
		// A periodic job has no allocations of its own to stop, and
		// so no evaluation: say what stopping it did.
		c.Ui.Output(periodicStopped(client, job.ID, purge))
		return exitOK
	}
	if detach {
		c.Ui.Output(evalID)
		return exitOK
	}
	ctx, stop := interruptContext()
	defer stop()
	return newEvalMonitor(c.Ui, client, verbose).monitor(ctx, evalID)
}

// periodicStopped says what stopping (or purging) a periodic job did: it
// launches no more children, and the children it launched, which it does
// not stop, are listed with how to stop them.
func periodicStopped(client *api.Client, id string, purge bool) string {
	done := "stopped"
	if purge {
		done = "purged"
	}
	head := fmt.Sprintf("Periodic job %q %s: it launches no more children.", id, done)
	found, _, err := client.Jobs().PrefixList(id + "/periodic-")
	if err != nil {
		return fmt.Sprintf("%s\nThe jobs it launched are not stopped (listing them failed: %v).", head, err)
	}
	var live []string
	for _, j := range found {
		if j.ParentID == id && j.Status != "dead" && !j.Stop {
			live = append(live, j.ID)
		}
	}
	switch len(live) {
	case 0:
		return head + " None of the jobs it launched is still running."
	case 1:
		return fmt.Sprintf("%s\nThe job it launched keeps running; stop it with \"drover job stop %s\".", head, live[0])
	}
	slices.Sort(live)
	return fmt.Sprintf("%s\nThe %d jobs it launched keep running; stop each with \"drover job stop <id>\":\n  %s",
		head, len(live), strings.Join(live, "\n  "))
}
