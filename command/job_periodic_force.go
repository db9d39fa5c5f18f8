package command

import (
	"fmt"
	"strings"

	"github.com/drover-io/drover/api"
)

// JobPeriodicForceCommand launches a periodic job now.
type JobPeriodicForceCommand struct{ Meta }

func (c *JobPeriodicForceCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover job periodic force [options] <job>

  Launches a periodic job now, outside its schedule, given its ID or a
  unique prefix of one, and follows the evaluation of the launched child
  until the scheduler is done. A forced launch does not wait for earlier
  children, whatever prohibit_overlap says.
` + clientOptionsHelp + `
Periodic Force Options:

  -detach
    Return as soon as the child is launched, printing the ID of its
    evaluation, instead of following it.

  -verbose
    Print full IDs.
`)
}

func (c *JobPeriodicForceCommand) Synopsis() string {
	return "Force the launch of a periodic job"
}

func (c *JobPeriodicForceCommand) Run(args []string) int {
	var detach, verbose bool
	fs := c.ClientFlagSet("job periodic force")
	fs.BoolVar(&detach, "detach", false, "")
	fs.BoolVar(&verbose, "verbose", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 {
		return usageError(c.Ui, "job periodic force", "This command takes one argument: <job>")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	job, ok := c.resolvePeriodicJob(client, fs.Arg(0))
	if !ok {
		return exitError
	}
	evalID, _, err := client.Jobs().PeriodicForce(job.ID, nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "forcing periodic job", err))
		return exitError
	}
	if note := relaunchNote(client, evalID); note != "" {
		c.Ui.Output(note)
	}
	if detach {
		c.Ui.Output("Force periodic successful")
		c.Ui.Output("Evaluation ID: " + evalID)
		return exitOK
	}
	ctx, stop := interruptContext()
	defer stop()
	return newEvalMonitor(c.Ui, client, verbose).monitor(ctx, evalID)
}

// resolvePeriodicJob finds the periodic job an ID or a unique ID prefix
// names. Only periodic jobs count: a prefix of the parent's ID is also one
// of its children's.
func (c *JobPeriodicForceCommand) resolvePeriodicJob(client *api.Client, id string) (*api.JobListStub, bool) {
	jobs, _, err := client.Jobs().PrefixList(id)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "querying jobs", err))
		return nil, false
	}
	var periodic []*api.JobListStub
	for _, j := range jobs {
		if j.ID == id && !j.Periodic {
			c.Ui.Error(fmt.Sprintf("Job %q is not periodic", id))
			return nil, false
		}
		if j.Periodic {
			periodic = append(periodic, j)
		}
	}
	return resolvePrefix(c.Ui, id, "periodic job", periodic, func(j *api.JobListStub) string { return j.ID }, jobListTable)
}

// relaunchNote says, when a forced launch found its child already there,
// that nothing new was launched, and why: a periodic job's children are
// named by the second of their launch, so a second force within the same
// second re-evaluates the child the first one launched. It is "" for a
// launch that registered a new child (the child is older than its
// evaluation only when it was there before).
func relaunchNote(client *api.Client, evalID string) string {
	eval, _, err := client.Evaluations().Info(evalID, nil)
	if err != nil || eval == nil {
		return ""
	}
	child, _, err := client.Jobs().Info(eval.JobID, nil)
	if err != nil || child == nil || deref(child.CreateIndex) >= eval.CreateIndex {
		return ""
	}
	return fmt.Sprintf("No new job was launched: %q was already launched within this second (children are named by the second they launch in), so this evaluation re-evaluates it. Force again in a second to launch another.", eval.JobID)
}
