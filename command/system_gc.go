package command

import "strings"

// SystemGCCommand asks the servers to collect garbage now.
type SystemGCCommand struct{ Meta }

func (c *SystemGCCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover system gc [options]

  Collects the garbage of the cluster's state now: dead jobs, terminal
  evaluations and allocations, and nodes down with nothing on them,
  regardless of the servers' thresholds (job_gc_threshold and the
  others) and of the jobs' ttl_after_finished. What a running job still
  needs is never collected, nor the newest keep_last dead children of a
  periodic job. It needs a management token.
` + clientOptionsHelp)
}

func (c *SystemGCCommand) Synopsis() string { return "Run the system garbage collection process" }

func (c *SystemGCCommand) Run(args []string) int {
	fs := c.ClientFlagSet("system gc")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 0 {
		return usageError(c.Ui, "system gc", "This command takes no arguments")
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	if err := client.System().GarbageCollect(); err != nil {
		c.Ui.Error(apiErrorLine(client, "running garbage collection", err))
		return exitError
	}
	return exitOK
}
