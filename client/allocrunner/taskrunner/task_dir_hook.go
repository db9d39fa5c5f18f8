package taskrunner

import (
	"context"

	"github.com/drover-io/drover/drivers"
)

// taskDirHook builds the task's directory: local/, secrets/ and tmp/. It
// runs before every run, so a directory removed meanwhile comes back.
type taskDirHook struct{}

func (taskDirHook) Name() string { return "task_dir" }

func (taskDirHook) Prestart(_ context.Context, req *prestartRequest) (bool, error) {
	req.Emit(setupEvent("Building Task Directory"))
	if err := req.TaskDir.Build(); err != nil {
		// A directory that cannot be made now may be made later (a full
		// disk): let the restart policy try again.
		return false, drivers.NewRecoverableError(err, true)
	}
	return false, nil
}
