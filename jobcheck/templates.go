package jobcheck

import (
	"fmt"

	"github.com/drover-io/drover/internal/template"
	"github.com/drover-io/drover/structs"
)

// templateProblems parses each template's inline data and refuses one
// that Drover's client could not render: a syntax error, or a function
// that needs a Consul or Vault server (the error names the function and
// the agent block Drover lacks), or one Drover does not have. A template
// read from a source file is parsed by the client, which reports the same
// errors as the task's.
func templateProblems(job *structs.Job) error {
	var errs []error
	for _, tg := range job.TaskGroups {
		if tg == nil {
			continue
		}
		for _, t := range tg.Tasks {
			if t == nil {
				continue
			}
			where := fmt.Sprintf("Task group %q task %q", tg.Name, t.Name)
			for i, tmpl := range t.Templates {
				if tmpl == nil || tmpl.EmbeddedTmpl == "" || tmpl.LeftDelim == "" || tmpl.RightDelim == "" {
					continue // structs' validation reports these
				}
				if err := template.Check(tmpl.EmbeddedTmpl, tmpl.LeftDelim, tmpl.RightDelim); err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", structs.TemplateWhere(where, i, tmpl), err))
				}
			}
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return &structs.ValidationError{Errors: errs}
}
