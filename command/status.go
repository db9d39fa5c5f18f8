package command

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/drover-io/drover/api"
)

// StatusCommand is Nomad's top-level status: alone it lists the jobs;
// with an ID or ID prefix it finds what the ID names, a job, an
// allocation, a node or an evaluation, and shows it with that kind's
// status command.
type StatusCommand struct{ Meta }

func (c *StatusCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover status [options] [id]

  Without an argument, lists the jobs, as 'drover job status' does.

  With one, finds what the ID or ID prefix names among the jobs,
  allocations, nodes and evaluations, and shows its status as 'drover
  job status', 'drover alloc status', 'drover node status' or 'drover
  eval status' does. A job whose ID is exactly the argument wins; a
  prefix that matches objects of more than one kind lists them.
` + clientOptionsHelp + `
Status Options:

  -verbose
    Show full IDs, as the command that shows the object does.
`)
}

func (c *StatusCommand) Synopsis() string {
	return "Display the status of jobs, allocations, nodes or evaluations"
}

// statusKind is one kind of object the command can find, with the
// command that shows it.
type statusKind struct {
	noun    string
	command string
	ids     []string
}

func (c *StatusCommand) Run(args []string) int {
	var verbose bool
	fs := c.ClientFlagSet("status")
	fs.BoolVar(&verbose, "verbose", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() > 1 {
		return usageError(c.Ui, "status", "This command takes at most one argument: [id]")
	}
	if fs.NArg() == 0 {
		return (&JobStatusCommand{Meta: c.Meta}).Run(args)
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	id := fs.Arg(0)
	kinds, err := findByPrefix(client, id)
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "searching for "+id, err))
		return exitError
	}
	switch len(kinds) {
	case 0:
		c.Ui.Error(fmt.Sprintf("No job, allocation, node or evaluation with ID or prefix %q found", id))
		return exitError
	case 1:
		return c.show(kinds[0].command, args)
	}
	if kinds[0].noun == "job" && slices.Contains(kinds[0].ids, id) {
		return c.show("job status", args)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Prefix %q matches more than one kind of object:", id)
	for _, k := range kinds {
		fmt.Fprintf(&b, "\n  %ss: %s (drover %s <id>)", k.noun, strings.Join(k.ids, ", "), k.command)
	}
	c.Ui.Error(b.String())
	return exitError
}

func (c *StatusCommand) show(command string, args []string) int {
	switch command {
	case "alloc status":
		return (&AllocStatusCommand{Meta: c.Meta}).Run(args)
	case "node status":
		return (&NodeStatusCommand{Meta: c.Meta}).Run(args)
	case "eval status":
		return (&EvalStatusCommand{Meta: c.Meta}).Run(args)
	}
	return (&JobStatusCommand{Meta: c.Meta}).Run(args)
}

// findByPrefix lists, by kind, the IDs that start with prefix; kinds
// with none are left out. Jobs come first.
func findByPrefix(client *api.Client, prefix string) ([]statusKind, error) {
	var kinds []statusKind
	add := func(noun, command string, ids []string) {
		if len(ids) > 0 {
			sort.Strings(ids)
			kinds = append(kinds, statusKind{noun: noun, command: command, ids: ids})
		}
	}
	jobs, _, err := client.Jobs().PrefixList(prefix)
	if err != nil {
		return nil, err
	}
	add("job", "job status", idsOf(jobs, func(j *api.JobListStub) string { return j.ID }))
	if !isHexPrefix(prefix) {
		// Only jobs have IDs that are not UUIDs.
		return kinds, nil
	}
	allocs, _, err := client.Allocations().PrefixList(prefix)
	if err != nil {
		return nil, err
	}
	add("allocation", "alloc status", idsOf(allocs, func(a *api.AllocationListStub) string { return a.ID }))
	nodes, _, err := client.Nodes().PrefixList(prefix)
	if err != nil {
		return nil, err
	}
	add("node", "node status", idsOf(nodes, func(n *api.NodeListStub) string { return n.ID }))
	evals, _, err := client.Evaluations().PrefixList(prefix)
	if err != nil {
		return nil, err
	}
	add("evaluation", "eval status", idsOf(evals, func(e *api.Evaluation) string { return e.ID }))
	return kinds, nil
}

func idsOf[T any](items []T, id func(T) string) []string {
	ids := make([]string, len(items))
	for i, item := range items {
		ids[i] = id(item)
	}
	return ids
}

// isHexPrefix reports whether s can begin a UUID.
func isHexPrefix(s string) bool {
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef-", r) {
			return false
		}
	}
	return s != ""
}
