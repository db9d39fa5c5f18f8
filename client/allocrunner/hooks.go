package allocrunner

import "github.com/drover-io/drover/structs"

// RunnerHook is a piece of the alloc runner's work around its tasks. A hook
// implements any of the kinds below; the runner calls each kind in the
// order the hooks were registered.
type RunnerHook interface {
	Name() string
}

// RunnerPrerunHook runs before any task starts, also after an agent
// restart. An error fails the allocation: no task runs.
type RunnerPrerunHook interface {
	RunnerHook
	Prerun() error
}

// RunnerUpdateHook is told of every new version of the allocation the
// servers send.
type RunnerUpdateHook interface {
	RunnerHook
	Update(req *RunnerUpdateRequest) error
}

// RunnerUpdateRequest carries the updated allocation.
type RunnerUpdateRequest struct {
	Alloc *structs.Allocation
}

// RunnerPreKillHook runs before the runner kills every task.
type RunnerPreKillHook interface {
	RunnerHook
	PreKill()
}

// RunnerPostrunHook runs once every task is dead.
type RunnerPostrunHook interface {
	RunnerHook
	Postrun() error
}

// RunnerShutdownHook runs when the agent stops and leaves the tasks
// running.
type RunnerShutdownHook interface {
	RunnerHook
	Shutdown()
}

// RunnerDestroyHook runs when the allocation is destroyed, after its tasks
// are dead.
type RunnerDestroyHook interface {
	RunnerHook
	Destroy() error
}
