package taskrunner

import (
	"fmt"
	"strings"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
)

// checkExecLimits holds a task's arguments and environment, interpolated,
// to what execve takes. The server checked them as written; values
// interpolated on the client (${NOMAD_META_...}, node attributes) may
// still push them past, which would fail the start with a bare E2BIG.
func checkExecLimits(cfg *drivers.TaskConfig) error {
	strs := append(structs.ExecArgs(cfg.Config), structs.ExecEnv(cfg.Env)...)
	problems := structs.CheckExec(strs, structs.MaxStartedExecBytes, "Linux's ARG_MAX of 2 MiB less 4 KiB for the program's path")
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("once interpolated, the task's arguments and environment are more than Linux starts a program with: %s", strings.Join(problems, "; "))
}
