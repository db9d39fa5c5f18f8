package structs

import (
	"fmt"
	"strings"
	"unicode"
)

// MaxNameLength bounds job IDs and names, group names and task names.
const MaxNameLength = 128

// Validate checks a canonicalised job and returns every problem it finds as
// one *ValidationError, or nil. Absent optional blocks (nil) are not
// problems: Canonicalize fills them.
func (j *Job) Validate() error {
	var p problems
	if j == nil {
		p.add("", "Missing job")
		return p.err()
	}
	j.validateFields(&p)
	validateConstraints(&p, "Job", j.Constraints)
	validateAffinities(&p, "Job", j.Affinities)
	validateSpreads(&p, "Job", j.Spreads)
	if j.Reschedule != nil {
		if !Reschedules(j.Type) {
			p.add("", "Job type %q does not allow reschedule", j.Type)
		} else {
			validateReschedule(&p, "Job", j.Reschedule)
		}
	}
	validateUpdate(&p, "", j.Type, j.Update)
	j.Periodic.validate(&p, j.Type)
	j.validateGC(&p)
	j.validateParameterized(&p)
	j.validateJobDeadlines(&p)
	validateWaitLimits(&p, "", j.Type, j.MaxPendingDuration, j.MaxRunExtension)
	j.validateOnFailures(&p)

	if len(j.TaskGroups) == 0 {
		p.add("", "Missing job task groups")
	}
	seen := make(map[string]bool, len(j.TaskGroups))
	for i, tg := range j.TaskGroups {
		where := groupWhere(i, tg)
		if tg == nil {
			p.add(where, "Missing definition (null)")
			continue
		}
		if tg.Name != "" && seen[tg.Name] {
			p.add(where, "Name is used by more than one task group")
		}
		seen[tg.Name] = true
		tg.validate(&p, where, j.Type)
		j.validateGroupWaitLimits(&p, where, tg)
	}
	j.validateTaskExec(&p)
	return p.err()
}

// validateFields checks the job's own scalar fields.
func (j *Job) validateFields(p *problems) {
	id := j.ID
	if j.isDerivedChild() {
		// A periodic launch is "<parent>/periodic-<unix>", a dispatch
		// "<parent>/dispatch-<unix>-<hex>": the parent's ID was checked
		// when the parent was registered, so only the suffix is checked
		// here.
		id = strings.TrimPrefix(j.ID, j.ParentID+"/")
	}
	if strings.TrimSpace(id) == "" {
		p.add("", "Missing job ID")
	} else {
		for _, problem := range nameProblems(id) {
			p.add("", "Job ID %s", problem)
		}
		if strings.IndexFunc(id, unicode.IsSpace) >= 0 {
			p.add("", "Job ID must not contain whitespace")
		}
	}

	if j.Name == "" {
		p.add("", "Missing job name")
	} else {
		if len(j.Name) > MaxNameLength {
			p.add("", "Job name must be at most %d characters, got %d", MaxNameLength, len(j.Name))
		}
		if problem := printableProblem(j.Name); problem != "" {
			p.add("", "Job name %s", problem)
		}
	}
	if j.Region == "" {
		p.add("", "Missing job region")
	}
	if j.Namespace == "" {
		p.add("", "Missing job namespace")
	}
	for _, f := range []struct{ name, value string }{{"region", j.Region}, {"namespace", j.Namespace}, {"node pool", j.NodePool}} {
		if problem := printableProblem(f.value); problem != "" {
			p.add("", "Job %s %s", f.name, problem)
		}
	}
	validateMetaKeys(p, "", j.Meta)
	switch j.Type {
	case JobTypeService, JobTypeBatch, JobTypeSystem, JobTypeSysbatch:
	case "":
		p.add("", "Missing job type")
	default:
		p.add("", "Invalid job type %q: must be one of %s, %s, %s, %s",
			j.Type, JobTypeService, JobTypeBatch, JobTypeSystem, JobTypeSysbatch)
	}
	if j.Priority < 1 || j.Priority > 100 {
		p.add("", "Job priority must be between 1 and 100, got %d", j.Priority)
	}
	if len(j.Datacenters) == 0 {
		p.add("", "Missing job datacenters")
	}
	for i, dc := range j.Datacenters {
		if dc == "" {
			p.add("", "Job datacenter #%d must not be empty", i+1)
		}
		if problem := printableProblem(dc); problem != "" {
			p.add("", "Job datacenter #%d %s", i+1, problem)
		}
	}
	if j.NodePool == "" {
		p.add("", "Missing job node pool")
	}
}

// isDerivedChild reports whether the job's ID is its parent's followed by
// one more path element, the form of a periodic launch.
func (j *Job) isDerivedChild() bool {
	if j.ParentID == "" {
		return false
	}
	suffix, ok := strings.CutPrefix(j.ID, j.ParentID+"/")
	return ok && suffix != ""
}

// validate checks a group and its tasks.
func (tg *TaskGroup) validate(p *problems, where, jobType string) {
	if tg.Name == "" {
		p.add(where, "Missing name")
	}
	for _, problem := range nameProblems(tg.Name) {
		p.add(where, "Name %s", problem)
	}
	if tg.Count < 0 {
		p.add(where, "Count must not be negative, got %d", tg.Count)
	}
	if (jobType == JobTypeSystem || jobType == JobTypeSysbatch) && tg.Count > 1 {
		p.add(where, "Job type %q requires count 0 or 1, got %d", jobType, tg.Count)
	}
	if tg.ShutdownDelay != nil {
		validateDuration(p, where, "shutdown_delay", *tg.ShutdownDelay)
	}
	if tg.MaxRunDuration != nil {
		if *tg.MaxRunDuration <= 0 {
			p.add(where, "max_run_duration must be greater than zero, got %s", *tg.MaxRunDuration)
		} else {
			validateDuration(p, where, "max_run_duration", *tg.MaxRunDuration)
		}
		if !AllowsMaxRunDuration(jobType) {
			p.add(where, "Job type %q does not allow max_run_duration", jobType)
		}
	}
	if d := tg.EphemeralDisk; d != nil && (d.SizeMB < MinEphemeralDiskMB || d.SizeMB > MaxEphemeralDiskMB) {
		p.add(where, "ephemeral_disk size must be between %d and %d MB, got %d", MinEphemeralDiskMB, MaxEphemeralDiskMB, d.SizeMB)
	}
	validateMetaKeys(p, where, tg.Meta)
	validateRestart(p, where, tg.RestartPolicy, true)
	if tg.ReschedulePolicy != nil {
		if !Reschedules(jobType) {
			p.add(where, "Job type %q does not allow reschedule", jobType)
		} else {
			validateReschedule(p, where, tg.ReschedulePolicy)
		}
	}
	validateUpdate(p, where, jobType, tg.Update)
	validateConstraints(p, where, tg.Constraints)
	validateAffinities(p, where, tg.Affinities)
	validateSpreads(p, where, tg.Spreads)
	tg.validateTasks(p, where)
	tg.validateVolumes(p, where)
	tg.validateMaxRunExtensions(p, where, jobType)
	tg.validateTaskNetworks(p, where)
	tg.validateNetworks(p, where)
	tg.validateServices(p, where)
}

// validateTasks checks the group's tasks, their names' uniqueness and that
// at most one of them leads.
func (tg *TaskGroup) validateTasks(p *problems, where string) {
	if len(tg.Tasks) == 0 {
		p.add(where, "Missing tasks")
		return
	}
	seen := make(map[string]bool, len(tg.Tasks))
	var leaders []string
	for i, t := range tg.Tasks {
		taskWhere := taskWhere(where, i, t)
		if t == nil {
			p.add(taskWhere, "Missing definition (null)")
			continue
		}
		if t.Name != "" && seen[t.Name] {
			p.add(taskWhere, "Name is used by more than one task")
		}
		seen[t.Name] = true
		if t.Leader {
			leaders = append(leaders, fmt.Sprintf("%q", t.Name))
		}
		t.validate(p, taskWhere)
	}
	if len(leaders) > 1 {
		p.add(where, "Only one task may be the leader, got %d: %s", len(leaders), strings.Join(leaders, ", "))
	}
}

// validate checks one task.
func (t *Task) validate(p *problems, where string) {
	if t.Name == "" {
		p.add(where, "Missing name")
	}
	for _, problem := range nameProblems(t.Name) {
		p.add(where, "Name %s", problem)
	}
	if t.Driver == "" {
		p.add(where, "Missing driver")
	} else if !KnownDriver(t.Driver) {
		p.add(where, "%s", unknownDriverProblem(t.Driver))
	}
	t.Lifecycle.validate(p, where)
	validateDuration(p, where, "kill_timeout", t.KillTimeout)
	validateDuration(p, where, "shutdown_delay", t.ShutdownDelay)
	validateMetaKeys(p, where, t.Meta)
	validateEnv(p, where, t.Env)
	// As in Nomad, a task's own restart block is not held to fit its
	// attempts in its interval: only the group's is.
	validateRestart(p, where, t.RestartPolicy, false)
	t.Resources.validate(p, where)
	t.LogConfig.validate(p, where)
	t.Identity.validate(p, where)
	for i, a := range t.Artifacts {
		a.validate(p, fmt.Sprintf("%s artifact #%d", where, i+1))
	}
	t.validateTemplates(p, where)
	validateConstraints(p, where, t.Constraints)
	validateAffinities(p, where, t.Affinities)
}

// nameProblems lists what is wrong with a name that ends up in paths, URLs
// and allocation names: its length, characters that are not printable and
// path separators.
// Each problem reads after the name's kind ("Job ID", "Name").
func nameProblems(name string) []string {
	var out []string
	if len(name) > MaxNameLength {
		out = append(out, fmt.Sprintf("must be at most %d characters, got %d", MaxNameLength, len(name)))
	}
	if problem := printableProblem(name); problem != "" {
		out = append(out, problem)
	}
	if strings.ContainsAny(name, `/\`) {
		out = append(out, `must not contain a path separator ("/" or "\")`)
	}
	if name == "." || name == ".." {
		out = append(out, fmt.Sprintf("must not be %q", name))
	}
	return out
}

// groupWhere names a group in messages: by name, or by position when it
// has none.
func groupWhere(i int, tg *TaskGroup) string {
	if tg == nil || tg.Name == "" {
		return fmt.Sprintf("Task group #%d", i+1)
	}
	return fmt.Sprintf("Task group %q", tg.Name)
}

// taskWhere names a task in messages, after its group.
func taskWhere(groupWhere string, i int, t *Task) string {
	if t == nil || t.Name == "" {
		return fmt.Sprintf("%s task #%d", groupWhere, i+1)
	}
	return fmt.Sprintf("%s task %q", groupWhere, t.Name)
}
