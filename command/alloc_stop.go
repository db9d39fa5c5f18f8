package command

import (
	"strings"
)

// AllocStopCommand stops an allocation; the scheduler replaces it when its
// job still wants it.
type AllocStopCommand struct{ Meta }

func (c *AllocStopCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover alloc stop [options] <alloc>

  Stops an allocation, named by its ID or a unique prefix of one. Its job
  is evaluated again, so an allocation its job still wants is replaced.
  Unless -detach is given, the command follows that evaluation.
` + clientOptionsHelp + `
Alloc Stop Options:

  -detach
    Return once the stop is accepted, printing the evaluation ID, without
    following the evaluation.

  -verbose
    Show full IDs.
`)
}

func (c *AllocStopCommand) Synopsis() string { return "Stop and reschedule a running allocation" }

func (c *AllocStopCommand) Run(args []string) int {
	var detach, verbose bool
	fs := c.ClientFlagSet("alloc stop")
	fs.BoolVar(&detach, "detach", false, "")
	fs.BoolVar(&verbose, "verbose", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 {
		return usageError(c.Ui, "alloc stop", "This command takes one argument: <alloc>")
	}
	client, alloc, ok := c.clientAndAlloc(fs.Arg(0))
	if !ok {
		return exitError
	}
	resp, err := client.Allocations().Stop(alloc, nil)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "stopping allocation", err))
		return exitError
	}
	if detach {
		c.Ui.Output(resp.EvalID)
		return exitOK
	}
	ctx, stop := interruptContext()
	defer stop()
	return newEvalMonitor(c.Ui, client, verbose).monitor(ctx, resp.EvalID)
}
