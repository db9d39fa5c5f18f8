package structs

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"time"
)

// validateParameterized checks the job's parameterized block, the
// dispatch inputs a dispatched child carries, and its tasks'
// dispatch_payload blocks.
func (j *Job) validateParameterized(p *problems) {
	if j.Dispatched && j.ParentID == "" {
		p.add("", "A dispatched job must have a parent: dispatch its parameterized job instead")
	}
	if len(j.Payload) > 0 && !j.Dispatched {
		p.add("", "Only a dispatch sets a job's payload")
	}
	if len(j.Payload) > DispatchPayloadSizeLimit {
		p.add("", "Payload is %d bytes, more than the limit of %d (16 KiB)", len(j.Payload), DispatchPayloadSizeLimit)
	}
	if j.DispatchMaxRunDuration != nil && !j.Dispatched {
		p.add("", "Only a dispatch sets a job's dispatch max_run_duration")
	}
	j.ParameterizedJob.validate(p, j.Type)
	for i, tg := range j.TaskGroups {
		if tg == nil {
			continue
		}
		for k, t := range tg.Tasks {
			if t != nil && t.DispatchPayload != nil {
				t.DispatchPayload.validate(p, taskWhere(groupWhere(i, tg), k, t))
			}
		}
	}
}

// validate checks a parameterized block.
func (c *ParameterizedJobConfig) validate(p *problems, jobType string) {
	if c == nil {
		return
	}
	const where = "Job parameterized"
	if jobType != JobTypeBatch && jobType != JobTypeSysbatch {
		p.add(where, "Job type %q does not allow parameterized; only batch and sysbatch jobs may be", jobType)
	}
	switch c.Payload {
	case DispatchPayloadOptional, DispatchPayloadRequired, DispatchPayloadForbidden:
	default:
		p.add(where, "payload must be %q, %q or %q, got %q",
			DispatchPayloadOptional, DispatchPayloadRequired, DispatchPayloadForbidden, c.Payload)
	}
	seen := map[string]string{}
	for _, list := range []struct {
		name string
		keys []string
	}{{"meta_required", c.MetaRequired}, {"meta_optional", c.MetaOptional}} {
		for _, k := range list.keys {
			if k == "" {
				p.add(where, "%s has an empty key", list.name)
				continue
			}
			if problem := printableProblem(k); problem != "" {
				p.add(where, "%s key %q %s", list.name, k, problem)
			}
			if prev, dup := seen[k]; dup {
				p.add(where, "meta key %q is listed twice (in %s and %s)", k, prev, list.name)
			}
			seen[k] = list.name
		}
	}
	if m := c.MaxRunDurationMax; m != nil {
		if *m <= 0 {
			p.add(where, "max_run_duration_max must be greater than zero, got %s", *m)
		} else {
			validateDuration(p, where, "max_run_duration_max", *m)
		}
	}
}

// validate checks a dispatch_payload block: its file stays inside the
// task's local/ directory.
func (d *DispatchPayloadConfig) validate(p *problems, where string) {
	where += " dispatch_payload"
	switch {
	case d.File == "":
		p.add(where, "Missing file")
	case path.IsAbs(d.File) || strings.HasPrefix(path.Clean(d.File), "../") || path.Clean(d.File) == ".." || path.Clean(d.File) == ".":
		p.add(where, "file %q must be a path inside the task's local/ directory", d.File)
	}
	if problem := printableProblem(d.File); problem != "" {
		p.add(where, "file %s", problem)
	}
}

// DispatchInputs are what one dispatch brings to a parameterized job.
type DispatchInputs struct {
	Payload []byte
	Meta    map[string]string
	// MaxRunDuration is Drover's: the max_run_duration of every group of
	// the child; nil keeps the groups' own.
	MaxRunDuration *time.Duration
}

// CheckDispatch checks a dispatch's inputs against the job, which must
// be a parameterized job that is not stopped, and returns every problem
// as one *ValidationError, or nil.
func (j *Job) CheckDispatch(in DispatchInputs) error {
	var p problems
	switch {
	case !j.IsParameterized():
		p.add("", "Job %q is not a parameterized job: only a job with a parameterized block can be dispatched", j.ID)
		return p.err()
	case j.Stop:
		p.add("", "Job %q is stopped: a stopped parameterized job cannot be dispatched", j.ID)
		return p.err()
	}
	c := j.ParameterizedJob
	switch {
	case len(in.Payload) > DispatchPayloadSizeLimit:
		p.add("Payload", "%d bytes is more than the limit of %d (16 KiB)", len(in.Payload), DispatchPayloadSizeLimit)
	case c.Payload == DispatchPayloadRequired && len(in.Payload) == 0:
		p.add("Payload", "job %q requires a payload (parameterized payload = %q)", j.ID, c.Payload)
	case c.Payload == DispatchPayloadForbidden && len(in.Payload) > 0:
		p.add("Payload", "job %q forbids a payload (parameterized payload = %q)", j.ID, c.Payload)
	}
	for _, k := range c.MetaRequired {
		if _, ok := in.Meta[k]; !ok {
			p.add("Meta", "missing required key %q (parameterized meta_required)", k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(in.Meta)) {
		if !slices.Contains(c.MetaRequired, k) && !slices.Contains(c.MetaOptional, k) {
			p.add("Meta", "key %q is not allowed: job %q permits %s", k, j.ID, permittedMeta(c))
		}
	}
	validateMetaKeys(&p, "Meta", in.Meta)
	j.checkDispatchMaxRun(&p, in.MaxRunDuration)
	return p.err()
}

// checkDispatchMaxRun checks a dispatch's own max_run_duration.
func (j *Job) checkDispatchMaxRun(p *problems, d *time.Duration) {
	if d == nil {
		return
	}
	const where = "MaxRunDuration"
	if *d <= 0 {
		p.add(where, "must be greater than zero, got %s", *d)
		return
	}
	if !AllowsMaxRunDuration(j.Type) {
		p.add(where, "job type %q does not allow max_run_duration", j.Type)
	}
	if m := j.ParameterizedJob.MaxRunDurationMax; m != nil && *d > *m {
		p.add(where, "%s is more than job %q allows a dispatch (parameterized max_run_duration_max = %s)", *d, j.ID, *m)
	}
	validateDuration(p, where, "max_run_duration", *d)
}

// permittedMeta lists the meta keys a dispatch may set, for messages.
func permittedMeta(c *ParameterizedJobConfig) string {
	keys := slices.Concat(c.MetaRequired, c.MetaOptional)
	if len(keys) == 0 {
		return "no meta keys"
	}
	return fmt.Sprintf("only %s", quoteAll(keys))
}

// quoteAll joins quoted strings with ", ".
func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
