// Command drover is a single-binary workload orchestrator: server, client and
// CLI in one.
package main

import (
	"os"
	"strings"

	"github.com/drover-io/drover/command"
	"github.com/drover-io/drover/drivers/exec/isolate"
	"github.com/drover-io/drover/drivers/rawexec"
)

func main() {
	// An exec task's init (see package isolate) execs the task at once.
	if isolate.IsInit(os.Args[1:]) {
		os.Exit(isolate.InitMain())
	}
	if stateDir, ok := supervisorInvocation(os.Args[1:]); ok {
		os.Exit(rawexec.SupervisorMain([]string{stateDir}))
	}
	os.Exit(command.Main(os.Args[1:]))
}

// supervisorInvocation reports whether args run a raw_exec task supervisor
// (`task-supervisor <state-dir>`), the way the driver starts one. Such a run
// goes straight to the supervisor: one runs per task for as long as the
// task, and building the CLI's command table first would leave its garbage
// in every one of them. Anything else, help and usage errors included, goes
// through the CLI.
func supervisorInvocation(args []string) (stateDir string, ok bool) {
	if len(args) != 2 || args[0] != "task-supervisor" || args[1] == "" || strings.HasPrefix(args[1], "-") {
		return "", false
	}
	return args[1], true
}
