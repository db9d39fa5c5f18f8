package allocrunner

import "github.com/drover-io/drover/client/allocrunner/taskrunner"

// TaskExec returns the way into the named running task for an
// interactive command (see taskrunner.TaskRunner.Exec).
func (ar *AllocRunner) TaskExec(task string) (*taskrunner.Exec, error) {
	e, err := ar.entry(task)
	if err != nil {
		return nil, err
	}
	return e.runner.Exec()
}
