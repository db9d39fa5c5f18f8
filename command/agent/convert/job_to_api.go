package convert

import (
	"maps"
	"slices"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// JobToAPI converts a job into its wire form, as responses carry it. Every scalar becomes a set pointer and nil blocks stay nil, so
// JobFromAPI(JobToAPI(j)) equals j, and JobToAPI(JobFromAPI(in)) equals in
// when in sets every field. It shares no memory with j.
func JobToAPI(j *structs.Job) *api.Job {
	if j == nil {
		return nil
	}
	out := &api.Job{
		Region:            new(j.Region),
		Namespace:         new(j.Namespace),
		ID:                new(j.ID),
		Name:              new(j.Name),
		Type:              new(j.Type),
		Priority:          new(j.Priority),
		AllAtOnce:         new(j.AllAtOnce),
		Datacenters:       slices.Clone(j.Datacenters),
		NodePool:          new(j.NodePool),
		Constraints:       constraintsToAPI(j.Constraints),
		Affinities:        affinitiesToAPI(j.Affinities),
		Spreads:           spreadsToAPI(j.Spreads),
		Periodic:          periodicToAPI(j.Periodic),
		Reschedule:        rescheduleToAPI(j.Reschedule),
		Update:            UpdateToAPI(j.Update),
		Meta:              maps.Clone(j.Meta),
		TTLAfterFinished:  nonZero(j.TTLAfterFinished),
		Stop:              new(j.Stop),
		ParentID:          new(j.ParentID),
		Dispatched:        j.Dispatched,
		Status:            new(j.Status),
		StatusDescription: new(j.StatusDescription),
		Stable:            new(j.Stable),
		Version:           new(j.Version),
		SubmitTime:        new(j.SubmitTime),
		CreateIndex:       new(j.CreateIndex),
		ModifyIndex:       new(j.ModifyIndex),
		JobModifyIndex:    new(j.JobModifyIndex),
	}
	dispatchToAPI(out, j)
	out.MaxRunDuration = clonePtr(j.MaxRunDuration)
	out.Deadline = (*api.JobDeadline)(clonePtr(j.Deadline))
	out.MaxPendingDuration = clonePtr(j.MaxPendingDuration)
	out.MaxRunExtension = clonePtr(j.MaxRunExtension)
	if j.TaskGroups != nil {
		out.TaskGroups = make([]*api.TaskGroup, len(j.TaskGroups))
		for i, tg := range j.TaskGroups {
			out.TaskGroups[i] = taskGroupToAPI(tg)
		}
	}
	return out
}

func taskGroupToAPI(tg *structs.TaskGroup) *api.TaskGroup {
	if tg == nil {
		return nil
	}
	out := &api.TaskGroup{
		Name:             new(tg.Name),
		Count:            new(tg.Count),
		Constraints:      constraintsToAPI(tg.Constraints),
		Affinities:       affinitiesToAPI(tg.Affinities),
		Spreads:          spreadsToAPI(tg.Spreads),
		RestartPolicy:    restartToAPI(tg.RestartPolicy),
		ReschedulePolicy: rescheduleToAPI(tg.ReschedulePolicy),
		Update:           UpdateToAPI(tg.Update),
		Meta:             maps.Clone(tg.Meta),
		ShutdownDelay:    clonePtr(tg.ShutdownDelay),
		MaxRunDuration:   clonePtr(tg.MaxRunDuration),
		MinRunDuration:   clonePtr(tg.MinRunDuration),
	}
	if tg.MaxRunOutcome != "" {
		out.MaxRunOutcome = new(tg.MaxRunOutcome)
	}
	out.MaxPendingDuration = clonePtr(tg.MaxPendingDuration)
	out.MaxRunExtension = clonePtr(tg.MaxRunExtension)
	out.OnFailure = onFailureToAPI(tg.OnFailure)
	out.Networks = NetworksToAPI(tg.Networks)
	out.Services = servicesToAPI(tg.Services)
	if tg.EphemeralDisk != nil {
		out.EphemeralDisk = &api.EphemeralDisk{SizeMB: new(tg.EphemeralDisk.SizeMB)}
	}
	out.Volumes = volumesToAPI(tg.Volumes)
	if tg.Tasks != nil {
		out.Tasks = make([]*api.Task, len(tg.Tasks))
		for i, t := range tg.Tasks {
			out.Tasks[i] = taskToAPI(t)
		}
	}
	return out
}

func taskToAPI(t *structs.Task) *api.Task {
	if t == nil {
		return nil
	}
	out := &api.Task{
		Name:          t.Name,
		Driver:        t.Driver,
		User:          t.User,
		Config:        structs.CopyConfig(t.Config),
		Constraints:   constraintsToAPI(t.Constraints),
		Affinities:    affinitiesToAPI(t.Affinities),
		Env:           maps.Clone(t.Env),
		Resources:     resourcesToAPI(t.Resources),
		RestartPolicy: restartToAPI(t.RestartPolicy),
		Meta:          maps.Clone(t.Meta),
		KillTimeout:   new(t.KillTimeout),
		LogConfig:     logConfigToAPI(t.LogConfig),
		Leader:        t.Leader,
		ShutdownDelay: t.ShutdownDelay,
		KillSignal:    t.KillSignal,
	}
	if len(t.Networks) > 0 && out.Resources != nil {
		out.Resources.Networks = NetworksToAPI(t.Networks)
	}
	out.MaxRunDuration = clonePtr(t.MaxRunDuration)
	out.DispatchPayload = dispatchPayloadToAPI(t.DispatchPayload)
	out.VolumeMounts = volumeMountsToAPI(t.VolumeMounts)
	if w := t.MaxRunWarning; w != nil {
		out.MaxRunWarning = &api.MaxRunWarning{Signal: w.Signal, Before: new(w.Before)}
	}
	if id := t.Identity; id != nil {
		out.Identity = &api.WorkloadIdentity{Name: id.Name, Audience: slices.Clone(id.Audience), Env: id.Env, File: id.File, TTL: id.TTL}
	}
	if t.Lifecycle != nil {
		out.Lifecycle = &api.TaskLifecycle{Hook: t.Lifecycle.Hook, Sidecar: t.Lifecycle.Sidecar}
	}
	if t.Artifacts != nil {
		out.Artifacts = make([]*api.TaskArtifact, len(t.Artifacts))
		for i, a := range t.Artifacts {
			out.Artifacts[i] = artifactToAPI(a)
		}
	}
	out.Templates = templatesToAPI(t.Templates)
	out.Services = servicesToAPI(t.Services)
	return out
}

func restartToAPI(p *structs.RestartPolicy) *api.RestartPolicy {
	if p == nil {
		return nil
	}
	return &api.RestartPolicy{
		Attempts: new(p.Attempts),
		Interval: new(p.Interval),
		Delay:    new(p.Delay),
		Mode:     new(p.Mode),
	}
}

func rescheduleToAPI(p *structs.ReschedulePolicy) *api.ReschedulePolicy {
	if p == nil {
		return nil
	}
	return &api.ReschedulePolicy{
		Attempts:      new(p.Attempts),
		Interval:      new(p.Interval),
		Delay:         new(p.Delay),
		DelayFunction: new(p.DelayFunction),
		MaxDelay:      new(p.MaxDelay),
		Unlimited:     new(p.Unlimited),
	}
}

func periodicToAPI(p *structs.PeriodicConfig) *api.PeriodicConfig {
	if p == nil {
		return nil
	}
	return &api.PeriodicConfig{
		Enabled:         new(p.Enabled),
		Spec:            new(p.Spec),
		Specs:           slices.Clone(p.Specs),
		SpecType:        new(p.SpecType),
		ProhibitOverlap: new(p.ProhibitOverlap),
		TimeZone:        new(p.TimeZone),
		Overlap:         nonZero(p.Overlap),
		KeepLast:        nonZero(p.KeepLast),
	}
}

// nonZero points at v, or is nil for v's zero value: a field Drover adds
// is left out of a job that does not set it.
func nonZero[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}

func constraintsToAPI(in []*structs.Constraint) []*api.Constraint {
	if in == nil {
		return nil
	}
	out := make([]*api.Constraint, len(in))
	for i, c := range in {
		if c != nil {
			out[i] = &api.Constraint{LTarget: c.LTarget, RTarget: c.RTarget, Operand: c.Operand}
		}
	}
	return out
}

func resourcesToAPI(r *structs.Resources) *api.Resources {
	if r == nil {
		return nil
	}
	return &api.Resources{
		CPU:         new(r.CPU),
		Cores:       new(r.Cores),
		MemoryMB:    new(r.MemoryMB),
		MemoryMaxMB: new(r.MemoryMaxMB),
		DiskMB:      new(r.DiskMB),
	}
}

func logConfigToAPI(l *structs.LogConfig) *api.LogConfig {
	if l == nil {
		return nil
	}
	return &api.LogConfig{
		MaxFiles:      new(l.MaxFiles),
		MaxFileSizeMB: new(l.MaxFileSizeMB),
		Disabled:      new(l.Disabled),
	}
}

func artifactToAPI(a *structs.TaskArtifact) *api.TaskArtifact {
	if a == nil {
		return nil
	}
	return &api.TaskArtifact{
		GetterSource:   new(a.GetterSource),
		GetterOptions:  maps.Clone(a.GetterOptions),
		GetterHeaders:  maps.Clone(a.GetterHeaders),
		GetterMode:     new(a.GetterMode),
		GetterInsecure: new(a.GetterInsecure),
		RelativeDest:   new(a.RelativeDest),
		Chown:          a.Chown,
	}
}

// JobStub summarises a job with its allocation counts (nil when unknown),
// as GET /v1/jobs returns it. It shares no memory with j or summary.
func JobStub(j *structs.Job, summary *structs.JobSummary) *api.JobListStub {
	return &api.JobListStub{
		ID:                j.ID,
		ParentID:          j.ParentID,
		Name:              j.Name,
		Namespace:         j.Namespace,
		Datacenters:       slices.Clone(j.Datacenters),
		Type:              j.Type,
		Priority:          j.Priority,
		Periodic:          j.IsPeriodic(),
		ParameterizedJob:  j.IsParameterized(),
		Stop:              j.Stop,
		Status:            j.Status,
		StatusDescription: j.StatusDescription,
		JobSummary:        JobSummaryToAPI(summary),
		CreateIndex:       j.CreateIndex,
		ModifyIndex:       j.ModifyIndex,
		JobModifyIndex:    j.JobModifyIndex,
		SubmitTime:        j.SubmitTime,
		Meta:              maps.Clone(j.Meta),
	}
}

// JobSummaryToAPI converts a job's allocation counts. It shares no memory
// with s.
func JobSummaryToAPI(s *structs.JobSummary) *api.JobSummary {
	if s == nil {
		return nil
	}
	out := &api.JobSummary{
		JobID:       s.JobID,
		Namespace:   s.Namespace,
		Summary:     convertMap(s.Summary, func(tg structs.TaskGroupSummary) api.TaskGroupSummary { return api.TaskGroupSummary(tg) }),
		CreateIndex: s.CreateIndex,
		ModifyIndex: s.ModifyIndex,
	}
	if s.Children != nil {
		children := api.JobChildrenSummary(*s.Children)
		out.Children = &children
	}
	return out
}

func onFailureToAPI(in []*structs.OnFailureRule) []*api.OnFailureRule {
	if in == nil {
		return nil
	}
	out := make([]*api.OnFailureRule, len(in))
	for i, r := range in {
		if r != nil {
			out[i] = &api.OnFailureRule{
				ExitCodes: slices.Clone(r.ExitCodes),
				Signals:   slices.Clone(r.Signals),
				Reasons:   slices.Clone(r.Reasons),
				Action:    r.Action,
			}
		}
	}
	return out
}
