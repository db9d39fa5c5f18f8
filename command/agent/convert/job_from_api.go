package convert

import (
	"maps"
	"slices"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// Filling in defaults is split between JobFromAPI and Canonicalize by what
// each of them can see.
//
// The wire types use pointers, so in an api.Job "unset" and "zero" differ;
// in a Job they are the same plain value. Conversion is therefore the last
// point at which a default can be told apart from a zero the user chose, and
// JobFromAPI resolves exactly the defaults where zero (or false) is a valid
// choice of its own:
//
//   - a group's count (count = 0 keeps a group at no allocations);
//   - the fields of a restart block the user wrote, merged field by field
//     over the default for the job type, and a task's restart block over its
//     group's (restart attempts = 0 and delay = 0 are meaningful);
//   - the fields of a reschedule block, merged over the type's default, then
//     the job's reschedule block, then the group's (attempts = 0, interval = 0
//     and unlimited = false are meaningful);
//   - a periodic block's enabled flag, which is true unless written false.
//
// A block the user did not write stays nil, and every other default is left
// to Canonicalize: job-level fields, absent blocks, and zero values that are
// never a valid choice (priority 0, kill_timeout 0, cpu 0 without cores,
// memory 0, log limits of 0, an empty periodic spec type or time zone). So
// Canonicalize alone completes a Job built in Go, while a job from the wire
// goes through both: JobFromAPI, then Canonicalize, then Validate.

// JobFromAPI converts a job as submitted into the internal model, resolving
// the defaults that only the wire form can tell apart (see above). It neither
// modifies nor shares memory with in. Nil entries in lists stay nil, so that
// validation can report them.
func JobFromAPI(in *api.Job) *structs.Job {
	if in == nil {
		return nil
	}
	jobType := Deref(in.Type)
	if jobType == "" {
		jobType = structs.JobTypeService // as Canonicalize will decide
	}
	j := &structs.Job{
		Region:            Deref(in.Region),
		Namespace:         Deref(in.Namespace),
		ID:                Deref(in.ID),
		Name:              Deref(in.Name),
		Type:              Deref(in.Type),
		Priority:          Deref(in.Priority),
		AllAtOnce:         Deref(in.AllAtOnce),
		Datacenters:       slices.Clone(in.Datacenters),
		NodePool:          Deref(in.NodePool),
		Constraints:       constraintsFromAPI(in.Constraints),
		Affinities:        affinitiesFromAPI(in.Affinities),
		Spreads:           spreadsFromAPI(in.Spreads),
		Periodic:          periodicFromAPI(in.Periodic),
		Reschedule:        rescheduleFromAPI(in.Reschedule, structs.DefaultReschedulePolicy(jobType)),
		Update:            jobUpdateFromAPI(in.Update),
		Meta:              maps.Clone(in.Meta),
		TTLAfterFinished:  Deref(in.TTLAfterFinished),
		Stop:              Deref(in.Stop),
		ParentID:          Deref(in.ParentID),
		Dispatched:        in.Dispatched,
		Status:            Deref(in.Status),
		StatusDescription: Deref(in.StatusDescription),
		Stable:            Deref(in.Stable),
		Version:           Deref(in.Version),
		SubmitTime:        Deref(in.SubmitTime),
		CreateIndex:       Deref(in.CreateIndex),
		ModifyIndex:       Deref(in.ModifyIndex),
		JobModifyIndex:    Deref(in.JobModifyIndex),
	}
	dispatchFromAPI(j, in)
	j.MaxRunDuration = clonePtr(in.MaxRunDuration)
	j.Deadline = (*structs.JobDeadline)(clonePtr(in.Deadline))
	j.MaxPendingDuration = clonePtr(in.MaxPendingDuration)
	j.MaxRunExtension = clonePtr(in.MaxRunExtension)
	rescheduleBase := j.Reschedule
	if rescheduleBase == nil {
		rescheduleBase = structs.DefaultReschedulePolicy(jobType)
	}
	if in.TaskGroups != nil {
		j.TaskGroups = make([]*structs.TaskGroup, len(in.TaskGroups))
		for i, tg := range in.TaskGroups {
			j.TaskGroups[i] = taskGroupFromAPI(tg, jobType, rescheduleBase)
			if j.TaskGroups[i] != nil {
				j.TaskGroups[i].Update = groupUpdateFromAPI(in.Update, tg.Update)
			}
		}
	}
	return j
}

// taskGroupFromAPI converts a group. rescheduleBase is what the group's own
// reschedule fields are merged over: the job's block, else the type default
// (nil for types that do not reschedule).
func taskGroupFromAPI(in *api.TaskGroup, jobType string, rescheduleBase *structs.ReschedulePolicy) *structs.TaskGroup {
	if in == nil {
		return nil
	}
	tg := &structs.TaskGroup{
		Name:             Deref(in.Name),
		Count:            structs.DefaultTaskGroupCount,
		Constraints:      constraintsFromAPI(in.Constraints),
		Affinities:       affinitiesFromAPI(in.Affinities),
		Spreads:          spreadsFromAPI(in.Spreads),
		RestartPolicy:    restartFromAPI(in.RestartPolicy, structs.DefaultRestartPolicy(jobType)),
		ReschedulePolicy: rescheduleFromAPI(in.ReschedulePolicy, rescheduleBase),
		Meta:             maps.Clone(in.Meta),
		ShutdownDelay:    clonePtr(in.ShutdownDelay),
		MaxRunDuration:   clonePtr(in.MaxRunDuration),
		MinRunDuration:   clonePtr(in.MinRunDuration),
	}
	if in.Count != nil {
		tg.Count = *in.Count
	}
	tg.MaxRunOutcome = Deref(in.MaxRunOutcome)
	tg.MaxPendingDuration = clonePtr(in.MaxPendingDuration)
	tg.MaxRunExtension = clonePtr(in.MaxRunExtension)
	tg.OnFailure = onFailureFromAPI(in.OnFailure)
	tg.EphemeralDisk = ephemeralDiskFromAPI(in.EphemeralDisk)
	tg.Networks = networksFromAPI(in.Networks)
	tg.Volumes = volumesFromAPI(in.Volumes)
	tg.Services = servicesFromAPI(in.Services)
	restartBase := tg.RestartPolicy
	if restartBase == nil {
		restartBase = structs.DefaultRestartPolicy(jobType)
	}
	if in.Tasks != nil {
		tg.Tasks = make([]*structs.Task, len(in.Tasks))
		for i, t := range in.Tasks {
			tg.Tasks[i] = taskFromAPI(t, restartBase)
		}
	}
	return tg
}

// taskFromAPI converts a task; the fields of its restart block are merged
// over restartBase, its group's policy.
func taskFromAPI(in *api.Task, restartBase *structs.RestartPolicy) *structs.Task {
	if in == nil {
		return nil
	}
	t := &structs.Task{
		Name:          in.Name,
		Driver:        in.Driver,
		User:          in.User,
		Config:        structs.CopyConfig(in.Config),
		Constraints:   constraintsFromAPI(in.Constraints),
		Affinities:    affinitiesFromAPI(in.Affinities),
		Env:           maps.Clone(in.Env),
		Resources:     resourcesFromAPI(in.Resources),
		RestartPolicy: restartFromAPI(in.RestartPolicy, restartBase),
		Meta:          maps.Clone(in.Meta),
		KillTimeout:   Deref(in.KillTimeout),
		LogConfig:     logConfigFromAPI(in.LogConfig),
		Leader:        in.Leader,
		ShutdownDelay: in.ShutdownDelay,
		KillSignal:    in.KillSignal,
	}
	if in.Resources != nil {
		t.Networks = networksFromAPI(in.Resources.Networks)
	}
	t.MaxRunDuration = clonePtr(in.MaxRunDuration)
	t.DispatchPayload = dispatchPayloadFromAPI(in.DispatchPayload)
	t.VolumeMounts = volumeMountsFromAPI(in.VolumeMounts)
	if w := in.MaxRunWarning; w != nil {
		t.MaxRunWarning = &structs.MaxRunWarning{Signal: w.Signal, Before: Deref(w.Before)}
	}
	if id := in.Identity; id != nil {
		t.Identity = &structs.WorkloadIdentity{Name: id.Name, Audience: slices.Clone(id.Audience), Env: id.Env, File: id.File, TTL: id.TTL}
	}
	if in.Lifecycle != nil {
		t.Lifecycle = &structs.TaskLifecycle{Hook: in.Lifecycle.Hook, Sidecar: in.Lifecycle.Sidecar}
	}
	if in.Artifacts != nil {
		t.Artifacts = make([]*structs.TaskArtifact, len(in.Artifacts))
		for i, a := range in.Artifacts {
			t.Artifacts[i] = artifactFromAPI(a)
		}
	}
	t.Templates = templatesFromAPI(in.Templates)
	t.Services = servicesFromAPI(in.Services)
	return t
}

// restartFromAPI returns nil for an absent block, else base with the
// block's set fields laid over it.
func restartFromAPI(in *api.RestartPolicy, base *structs.RestartPolicy) *structs.RestartPolicy {
	if in == nil {
		return nil
	}
	out := *base
	setIf(&out.Attempts, in.Attempts)
	setIf(&out.Interval, in.Interval)
	setIf(&out.Delay, in.Delay)
	setIf(&out.Mode, in.Mode)
	return &out
}

// rescheduleFromAPI returns nil for an absent block, else base (zero when
// nil) with the block's set fields laid over it.
func rescheduleFromAPI(in *api.ReschedulePolicy, base *structs.ReschedulePolicy) *structs.ReschedulePolicy {
	if in == nil {
		return nil
	}
	var out structs.ReschedulePolicy
	if base != nil {
		out = *base
	}
	setIf(&out.Attempts, in.Attempts)
	setIf(&out.Interval, in.Interval)
	setIf(&out.Delay, in.Delay)
	setIf(&out.DelayFunction, in.DelayFunction)
	setIf(&out.MaxDelay, in.MaxDelay)
	setIf(&out.Unlimited, in.Unlimited)
	return &out
}

func periodicFromAPI(in *api.PeriodicConfig) *structs.PeriodicConfig {
	if in == nil {
		return nil
	}
	p := &structs.PeriodicConfig{
		Enabled:         true,
		Spec:            Deref(in.Spec),
		Specs:           slices.Clone(in.Specs),
		SpecType:        Deref(in.SpecType),
		ProhibitOverlap: Deref(in.ProhibitOverlap),
		TimeZone:        Deref(in.TimeZone),
		Overlap:         Deref(in.Overlap),
		KeepLast:        Deref(in.KeepLast),
	}
	setIf(&p.Enabled, in.Enabled)
	return p
}

func constraintsFromAPI(in []*api.Constraint) []*structs.Constraint {
	if in == nil {
		return nil
	}
	out := make([]*structs.Constraint, len(in))
	for i, c := range in {
		if c != nil {
			out[i] = &structs.Constraint{LTarget: c.LTarget, RTarget: c.RTarget, Operand: c.Operand}
		}
	}
	return out
}

func resourcesFromAPI(in *api.Resources) *structs.Resources {
	if in == nil {
		return nil
	}
	return &structs.Resources{
		CPU:         Deref(in.CPU),
		Cores:       Deref(in.Cores),
		MemoryMB:    Deref(in.MemoryMB),
		MemoryMaxMB: Deref(in.MemoryMaxMB),
		DiskMB:      Deref(in.DiskMB),
	}
}

func logConfigFromAPI(in *api.LogConfig) *structs.LogConfig {
	if in == nil {
		return nil
	}
	return &structs.LogConfig{
		MaxFiles:      Deref(in.MaxFiles),
		MaxFileSizeMB: Deref(in.MaxFileSizeMB),
		Disabled:      Deref(in.Disabled),
	}
}

func artifactFromAPI(in *api.TaskArtifact) *structs.TaskArtifact {
	if in == nil {
		return nil
	}
	return &structs.TaskArtifact{
		GetterSource:   Deref(in.GetterSource),
		GetterOptions:  maps.Clone(in.GetterOptions),
		GetterHeaders:  maps.Clone(in.GetterHeaders),
		GetterMode:     Deref(in.GetterMode),
		GetterInsecure: Deref(in.GetterInsecure),
		RelativeDest:   Deref(in.RelativeDest),
		Chown:          in.Chown,
	}
}

// Deref returns *p, or the zero value when p is nil.
func Deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// setIf sets *dst to *src when src is set.
func setIf[T any](dst *T, src *T) {
	if src != nil {
		*dst = *src
	}
}

// clonePtr returns a new pointer to a copy of *p, or nil.
// ephemeralDiskFromAPI is the group's disk: a block without a size asks
// for Nomad's default size.
func ephemeralDiskFromAPI(in *api.EphemeralDisk) *structs.EphemeralDisk {
	if in == nil {
		return nil
	}
	size := structs.DefaultEphemeralDiskMB
	if in.SizeMB != nil {
		size = *in.SizeMB
	}
	return &structs.EphemeralDisk{SizeMB: size}
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func onFailureFromAPI(in []*api.OnFailureRule) []*structs.OnFailureRule {
	if in == nil {
		return nil
	}
	out := make([]*structs.OnFailureRule, len(in))
	for i, r := range in {
		if r != nil {
			out[i] = &structs.OnFailureRule{
				ExitCodes: slices.Clone(r.ExitCodes),
				Signals:   slices.Clone(r.Signals),
				Reasons:   slices.Clone(r.Reasons),
				Action:    r.Action,
			}
		}
	}
	return out
}
