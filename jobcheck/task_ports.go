package jobcheck

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/drover-io/drover/drivers/shared/taskconfig"

	"github.com/drover-io/drover/structs"
)

// taskPortProblems holds the port labels a docker task's `ports` and
// `port_map` name to its group's network block (which holds the task
// network's ports too, once the job is canonical), so that a typo is
// refused when the job is submitted rather than when the container is
// created. The config's type
// is taskConfigProblems' to judge; a label with a runtime reference is the
// client's.
func taskPortProblems(job *structs.Job) error {
	var errs []error
	for _, tg := range job.TaskGroups {
		if tg == nil {
			continue
		}
		labels := map[string]bool{}
		for _, n := range tg.Networks {
			if n == nil {
				continue
			}
			for _, p := range n.Ports() {
				labels[p.Label] = true
			}
		}
		for _, t := range tg.Tasks {
			if t == nil || t.Driver != "docker" {
				continue
			}
			where := fmt.Sprintf("Task group %q task %q", tg.Name, t.Name)
			unknown := func(key, label string) {
				if !labels[label] && !strings.Contains(label, "${") {
					errs = append(errs, fmt.Errorf("%s: docker config key %q: port %q is not a port of the group's network block nor of the task's", where, key, label))
				}
			}
			list, _ := t.Config["ports"].([]any)
			for _, v := range list {
				if label, ok := v.(string); ok {
					unknown("ports", label)
				}
			}
			// port_map is a block or a map; a value of another type is
			// taskConfigProblems' to refuse.
			if m, err := (taskconfig.Map(t.Config)).StringMap("port_map"); err == nil {
				for _, label := range slices.Sorted(maps.Keys(m)) {
					unknown("port_map", label)
				}
			}
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return &structs.ValidationError{Errors: errs}
}
