package taskrunner

import (
	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/structs"
)

// ServiceInterpolator resolves the ${...} references of a service's name
// and tags as Nomad does: with the environment of its task (task nil: a
// group's service, with the allocation's variables and no task's). The
// task's directories are not known outside its runner, and no service
// name refers to them: their variables are empty here.
func ServiceInterpolator(alloc *structs.Allocation, task *structs.Task, node *structs.Node) func(string) string {
	if task == nil {
		task = &structs.Task{}
	}
	return buildTaskEnv(alloc, task, &allocdir.TaskDir{}, node).replace
}
