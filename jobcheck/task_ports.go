package jobcheck

import (
	"fmt"
	"strings"

	"github.com/drover-io/drover/structs"
)

// taskPortProblems holds the port labels a docker task's `ports` names to
// its group's network block, so that a typo is refused when the job is
// submitted rather than when the container is created. The config's type
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
			list, _ := t.Config["ports"].([]any)
			for _, v := range list {
				label, ok := v.(string)
				if !ok || labels[label] || strings.Contains(label, "${") {
					continue
				}
				where := fmt.Sprintf("Task group %q task %q", tg.Name, t.Name)
				errs = append(errs, fmt.Errorf("%s: docker config key %q: port %q is not a port of the group's network block", where, "ports", label))
			}
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return &structs.ValidationError{Errors: errs}
}
