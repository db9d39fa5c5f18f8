package structs

import (
	"path"
	"strings"
)

// Canonicalize fills in Nomad's defaults, so that the rest of the system
// never asks whether something was set. It fills job-level fields, blocks
// that are absent, and zero values that are never a valid choice; the
// defaults that depend on whether a wire field was set are the HTTP layer's,
// which converts the wire job (see command/agent/convert/job_from_api.go). Canonicalize is idempotent and skips nil groups, tasks and
// constraints, which validation reports.
func (j *Job) Canonicalize() {
	if j == nil {
		return
	}
	if j.Region == "" {
		j.Region = DefaultRegion
	}
	if j.Namespace == "" {
		j.Namespace = DefaultNamespace
	}
	if j.Name == "" {
		j.Name = j.ID
	}
	if j.Type == "" {
		j.Type = JobTypeService
	}
	if j.Priority == 0 {
		j.Priority = DefaultPriority
	}
	if len(j.Datacenters) == 0 {
		j.Datacenters = []string{AllDatacenters}
	}
	if j.NodePool == "" {
		j.NodePool = DefaultNodePool
	}
	if len(j.Meta) == 0 {
		j.Meta = nil
	}
	canonicalizeConstraints(j.Constraints)
	canonicalizeAffinities(j.Affinities)
	if !UsesDeployments(j.Type) {
		// Nomad ignores update blocks of batch and sysbatch work.
		j.Update = nil
	}
	j.Periodic.canonicalize()
	j.ParameterizedJob.canonicalize()
	for _, tg := range j.TaskGroups {
		tg.canonicalize(j)
	}
}

// canonicalize fills the group's policies from the job and its type, then
// its tasks'.
func (tg *TaskGroup) canonicalize(j *Job) {
	if tg == nil {
		return
	}
	if tg.RestartPolicy == nil {
		tg.RestartPolicy = DefaultRestartPolicy(j.Type)
	}
	if tg.ReschedulePolicy == nil && Reschedules(j.Type) {
		if j.Reschedule != nil {
			tg.ReschedulePolicy = j.Reschedule.Copy()
		} else {
			tg.ReschedulePolicy = DefaultReschedulePolicy(j.Type)
		}
	}
	if tg.MaxPendingDuration == nil {
		tg.MaxPendingDuration = clonePtr(j.MaxPendingDuration)
	}
	if tg.MaxRunExtension == nil {
		tg.MaxRunExtension = clonePtr(j.MaxRunExtension)
	}
	if !UsesDeployments(j.Type) {
		tg.Update = nil
	}
	if len(tg.Meta) == 0 {
		tg.Meta = nil
	}
	canonicalizeConstraints(tg.Constraints)
	canonicalizeAffinities(tg.Affinities)
	canonicalizeServices(tg.Services, j.Name+"-"+tg.Name)
	tg.mergeTaskNetworks()
	for _, t := range tg.Tasks {
		t.canonicalize(tg)
		if t != nil {
			canonicalizeServices(t.Services, j.Name+"-"+tg.Name+"-"+t.Name)
		}
	}
}

// canonicalize fills the task's defaults; a task without a restart block
// gets a copy of its group's.
func (t *Task) canonicalize(tg *TaskGroup) {
	if t == nil {
		return
	}
	if t.RestartPolicy == nil {
		t.RestartPolicy = tg.RestartPolicy.Copy()
	}
	if t.KillTimeout == 0 {
		t.KillTimeout = DefaultKillTimeout
	}
	if t.Resources == nil {
		t.Resources = DefaultResources()
	}
	t.Resources.canonicalize()
	if t.LogConfig == nil {
		t.LogConfig = DefaultLogConfig()
	}
	t.LogConfig.canonicalize()
	for _, a := range t.Artifacts {
		a.canonicalize()
	}
	for _, tmpl := range t.Templates {
		tmpl.canonicalize()
	}
	if len(t.Config) == 0 {
		t.Config = nil
	}
	if len(t.Env) == 0 {
		t.Env = nil
	}
	if len(t.Meta) == 0 {
		t.Meta = nil
	}
	canonicalizeConstraints(t.Constraints)
	canonicalizeAffinities(t.Affinities)
}

// canonicalize fills CPU and memory one by one. CPU stays zero when cores
// are reserved: the cores then stand for the CPU.
func (r *Resources) canonicalize() {
	if r.CPU == 0 && r.Cores == 0 {
		r.CPU = DefaultCPU
	}
	if r.MemoryMB == 0 {
		r.MemoryMB = DefaultMemoryMB
	}
}

func (l *LogConfig) canonicalize() {
	if l.MaxFiles == 0 {
		l.MaxFiles = DefaultLogMaxFiles
	}
	if l.MaxFileSizeMB == 0 {
		l.MaxFileSizeMB = DefaultLogMaxFileSizeMB
	}
}

// canonicalize fills the mode and destination. A file fetched in file mode
// lands in local/ under its own name; anything else unpacks into local/.
func (a *TaskArtifact) canonicalize() {
	if a == nil {
		return
	}
	if a.GetterMode == "" {
		a.GetterMode = DefaultArtifactMode
	}
	if a.RelativeDest == "" {
		a.RelativeDest = DefaultArtifactDest
		if a.GetterMode == ArtifactModeFile {
			a.RelativeDest = path.Join(DefaultArtifactDest, artifactFileName(a.GetterSource))
		}
	}
	if len(a.GetterOptions) == 0 {
		a.GetterOptions = nil
	}
	if len(a.GetterHeaders) == 0 {
		a.GetterHeaders = nil
	}
}

// artifactFileName is the last path element of a source URL, without its
// query string.
func artifactFileName(source string) string {
	if i := strings.IndexAny(source, "?#"); i >= 0 {
		source = source[:i]
	}
	return path.Base(source)
}

// canonicalize fills the spec type and time zone. Enabled was decided by
// the conversion from the wire job: false is a valid choice.
func (p *PeriodicConfig) canonicalize() {
	if p == nil {
		return
	}
	if p.SpecType == "" {
		p.SpecType = PeriodicSpecCron
	}
	if p.TimeZone == "" {
		p.TimeZone = "UTC"
	}
}

// canonicalizeConstraints makes an omitted operator "=", as the jobspec
// documents.
func canonicalizeConstraints(cs []*Constraint) {
	for _, c := range cs {
		if c != nil && c.Operand == "" {
			c.Operand = "="
		}
	}
}
