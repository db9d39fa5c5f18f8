package command

import (
	"fmt"
	"strings"

	"github.com/drover-io/drover/api"
)

// AllocRestartCommand restarts tasks of an allocation in place.
type AllocRestartCommand struct{ Meta }

func (c *AllocRestartCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover alloc restart [options] <alloc> [task]

  Restarts the tasks of an allocation, named by its ID or a unique prefix
  of one, on the node where it runs: the named task, or every running task
  when none is named. The restart does not count against the restart
  policy.
` + clientOptionsHelp + `
Alloc Restart Options:

  -task=<task>
    The task to restart, instead of the second argument.

  -all-tasks
    Restart every running task. It cannot be used with a task name.
`)
}

func (c *AllocRestartCommand) Synopsis() string { return "Restart a running allocation" }

func (c *AllocRestartCommand) Run(args []string) int {
	var taskFlag string
	var allTasks bool
	fs := c.ClientFlagSet("alloc restart")
	fs.StringVar(&taskFlag, "task", "", "")
	fs.BoolVar(&allTasks, "all-tasks", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		return usageError(c.Ui, "alloc restart", "This command takes one or two arguments: <alloc> [task]")
	}
	taskName, ok := c.taskArg(taskFlag, fs.Args())
	if !ok {
		return exitError
	}
	if taskName != "" && allTasks {
		c.Ui.Error("-all-tasks cannot be used with a task name")
		return exitError
	}
	client, alloc, taskName, ok := c.clientAndAllocTask(fs.Arg(0), taskName)
	if !ok {
		return exitError
	}
	if err := client.Allocations().Restart(alloc, taskName, allTasks, nil); err != nil {
		c.Ui.Error(apiErrorLine(client, "restarting allocation", err))
		return exitError
	}
	c.Ui.Output(restarted(alloc, taskName))
	return exitOK
}

// restarted says which tasks of the allocation a restart restarted: the
// named one, or those that were running.
func restarted(alloc *api.Allocation, taskName string) string {
	tasks := []string{taskName}
	if taskName == "" {
		tasks = tasks[:0]
		for _, name := range allocTaskNames(alloc) {
			if ts := alloc.TaskStates[name]; ts != nil && ts.State == "running" {
				tasks = append(tasks, name)
			}
		}
	}
	what := "its running tasks"
	switch len(tasks) {
	case 0:
	case 1:
		what = fmt.Sprintf("task %q", tasks[0])
	default:
		quoted := make([]string, len(tasks))
		for i, t := range tasks {
			quoted[i] = fmt.Sprintf("%q", t)
		}
		what = "tasks " + strings.Join(quoted, ", ")
	}
	return fmt.Sprintf("Restarted %s of allocation %s in place; the restart does not count against the restart policy.",
		what, shortID(alloc.ID, false))
}

// taskArg is the task a command names by -task or by its second argument;
// naming two different tasks is an error.
func (m *Meta) taskArg(flag string, args []string) (string, bool) {
	if len(args) < 2 {
		return flag, true
	}
	if flag != "" && flag != args[1] {
		m.Ui.Error(fmt.Sprintf("The task is named twice: -task=%s and %s", flag, args[1]))
		return "", false
	}
	return args[1], true
}
