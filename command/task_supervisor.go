package command

import (
	"strings"

	"github.com/drover-io/drover/drivers/rawexec"
)

// TaskSupervisorCommand is the raw_exec driver's per-task supervisor: the
// driver re-executes this binary with it to own a task's process. It is
// hidden from the command list; users never run it.
type TaskSupervisorCommand struct{ Meta }

func (c *TaskSupervisorCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover task-supervisor <state-dir>

  Internal: runs the task described by <state-dir>/spec.json for the
  raw_exec driver, copies its output into rotated log files and records
  how it ended. The driver starts it; it is not meant to be run by hand.
`)
}

func (c *TaskSupervisorCommand) Synopsis() string { return "Supervise a raw_exec task (internal)" }

func (c *TaskSupervisorCommand) Run(args []string) int { return rawexec.SupervisorMain(args) }
