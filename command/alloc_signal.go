package command

import (
	"strings"
)

// AllocSignalCommand sends a signal to tasks of an allocation.
type AllocSignalCommand struct{ Meta }

func (c *AllocSignalCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover alloc signal [options] <alloc> [task]

  Sends a signal to the tasks of an allocation, named by its ID or a
  unique prefix of one: to the named task, or to every running task when
  none is named.
` + clientOptionsHelp + `
Alloc Signal Options:

  -s=<signal>
    The signal to send, such as SIGHUP or USR1. Defaults to SIGKILL.

  -task=<task>
    The task to signal, instead of the second argument.
`)
}

func (c *AllocSignalCommand) Synopsis() string { return "Signal a running allocation" }

func (c *AllocSignalCommand) Run(args []string) int {
	var taskFlag, signal string
	fs := c.ClientFlagSet("alloc signal")
	fs.StringVar(&taskFlag, "task", "", "")
	fs.StringVar(&signal, "s", "", "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		return usageError(c.Ui, "alloc signal", "This command takes one or two arguments: <alloc> [task]")
	}
	taskName, ok := c.taskArg(taskFlag, fs.Args())
	if !ok {
		return exitError
	}
	client, alloc, taskName, ok := c.clientAndAllocTask(fs.Arg(0), taskName)
	if !ok {
		return exitError
	}
	if err := client.Allocations().Signal(alloc, nil, taskName, signal); err != nil {
		c.Ui.Error(apiErrorLine(client, "signalling allocation", err))
		return exitError
	}
	return exitOK
}
