package jobcheck

import (
	"fmt"

	"github.com/drover-io/drover/drivers/configschema"
	"github.com/drover-io/drover/structs"
)

// taskConfigProblems holds each task's config to its driver's schema, the
// definition the driver itself reads the config with: a typo is refused
// when the job is submitted, not found when a client starts the task.
// Values that hold a runtime reference are the client's to check, once
// interpolated. A driver Drover lacks is job.Validate's to report.
func taskConfigProblems(job *structs.Job) error {
	var errs []error
	for _, tg := range job.TaskGroups {
		if tg == nil {
			continue
		}
		for _, t := range tg.Tasks {
			if t == nil {
				continue
			}
			schema, known := configschema.Lookup(t.Driver)
			if !known {
				continue
			}
			where := fmt.Sprintf("Task group %q task %q", tg.Name, t.Name)
			for _, p := range schema.CheckSubmitted(t.Config) {
				errs = append(errs, fmt.Errorf("%s: %s config: %w", where, t.Driver, p))
			}
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return &structs.ValidationError{Errors: errs}
}
