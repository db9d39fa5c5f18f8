package convert

import (
	"maps"
	"slices"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// The wire forms of allocations. The HTTP layer adds what is computed for
// display, MaxRunDeadline, MaxRunDuration and MaxRunExceeded (all from
// structs.Allocation.MaxRun), here and only here: the model never stores
// them, so they ride through no raft entry, snapshot or client state.

// AllocToAPI converts an allocation, its job included, into its wire form.
// It shares no memory with a.
func AllocToAPI(a *structs.Allocation) *api.Allocation {
	out := allocWithoutJobToAPI(a)
	if out != nil {
		out.Job = JobToAPI(a.Job)
	}
	return out
}

// allocWithoutJobToAPI is AllocToAPI but for the job, which the event
// stream leaves out, as Nomad's does. What is worked out from the job
// (MaxRunDeadline, MaxRunDuration) is there all the same.
func allocWithoutJobToAPI(a *structs.Allocation) *api.Allocation {
	if a == nil {
		return nil
	}
	maxRun := a.MaxRun()
	return &api.Allocation{
		ID:                    a.ID,
		Namespace:             a.Namespace,
		EvalID:                a.EvalID,
		Name:                  a.Name,
		NodeID:                a.NodeID,
		NodeName:              a.NodeName,
		JobID:                 a.JobID,
		TaskGroup:             a.TaskGroup,
		Resources:             resourcesToAPI(a.Resources),
		TaskResources:         convertMap(a.TaskResources, resourcesToAPI),
		AllocatedResources:    AllocatedResourcesToAPI(a),
		Metrics:               allocMetricToAPI(a.Metrics),
		DesiredStatus:         a.DesiredStatus,
		DesiredDescription:    a.DesiredDescription,
		DesiredTransition:     desiredTransitionToAPI(a.DesiredTransition),
		ClientStatus:          a.ClientStatus,
		ClientDescription:     a.ClientDescription,
		TaskStates:            taskStatesToAPI(a),
		FollowupEvalID:        a.FollowupEvalID,
		PreviousAllocation:    a.PreviousAllocation,
		NextAllocation:        a.NextAllocation,
		RescheduleTracker:     rescheduleTrackerToAPI(a.RescheduleTracker),
		PreemptedAllocations:  slices.Clone(a.PreemptedAllocations),
		PreemptedByAllocation: a.PreemptedByAllocation,
		DeploymentID:          a.DeploymentID,
		DeploymentStatus:      AllocDeploymentStatusToAPI(a.DeploymentStatus),
		CreateIndex:           a.CreateIndex,
		ModifyIndex:           a.ModifyIndex,
		AllocModifyIndex:      a.AllocModifyIndex,
		CreateTime:            a.CreateTime,
		ModifyTime:            a.ModifyTime,
		MaxRunDeadline:        maxRunDeadlineUnixNano(a),
		MaxRunDuration:        maxRun.Budget,
		MaxRunExceeded:        maxRun.Exceeded,
		MaxRunScope:           string(maxRun.Scope),
		MaxRunOverride:        (*api.MaxRunOverride)(clonePtr(a.MaxRunOverride)),
		NetworkStatus:         networkStatusToAPI(a.NetworkStatus),
	}
}

// networkStatusToAPI is the allocation's network status; an empty one,
// as Nomad answers, for an allocation in host networking mode (or not yet
// set up), which has no address of its own.
func networkStatusToAPI(s *structs.AllocNetworkStatus) *api.AllocNetworkStatus {
	if s == nil {
		return &api.AllocNetworkStatus{}
	}
	out := &api.AllocNetworkStatus{InterfaceName: s.InterfaceName, Address: s.Address, AddressIPv6: s.AddressIPv6}
	if s.DNS != nil {
		out.DNS = cloneDNS(&api.DNSConfig{Servers: s.DNS.Servers, Searches: s.DNS.Searches, Options: s.DNS.Options})
	}
	return out
}

// AllocsToAPI converts allocations; never nil, so that none encodes as [].
func AllocsToAPI(allocs []*structs.Allocation) []*api.Allocation {
	return List(allocs, AllocToAPI)
}

// allocStub summarises an allocation as list endpoints return it. The stub
// shares no memory with a.
func allocStub(a *structs.Allocation) *api.AllocationListStub {
	maxRun := a.MaxRun()
	s := &api.AllocationListStub{
		ID:                    a.ID,
		EvalID:                a.EvalID,
		Name:                  a.Name,
		Namespace:             a.Namespace,
		NodeID:                a.NodeID,
		NodeName:              a.NodeName,
		JobID:                 a.JobID,
		TaskGroup:             a.TaskGroup,
		DesiredStatus:         a.DesiredStatus,
		DesiredDescription:    a.DesiredDescription,
		ClientStatus:          a.ClientStatus,
		ClientDescription:     a.ClientDescription,
		TaskStates:            taskStatesToAPI(a),
		FollowupEvalID:        a.FollowupEvalID,
		NextAllocation:        a.NextAllocation,
		RescheduleTracker:     rescheduleTrackerToAPI(a.RescheduleTracker),
		PreemptedAllocations:  slices.Clone(a.PreemptedAllocations),
		PreemptedByAllocation: a.PreemptedByAllocation,
		DeploymentStatus:      AllocDeploymentStatusToAPI(a.DeploymentStatus),
		CreateIndex:           a.CreateIndex,
		ModifyIndex:           a.ModifyIndex,
		CreateTime:            a.CreateTime,
		ModifyTime:            a.ModifyTime,
		MaxRunDeadline:        maxRunDeadlineUnixNano(a),
		MaxRunDuration:        maxRun.Budget,
		MaxRunExceeded:        maxRun.Exceeded,
		MaxRunScope:           string(maxRun.Scope),
	}
	if a.Job != nil {
		s.JobType = a.Job.Type
		s.JobVersion = a.Job.Version
	}
	return s
}

// AllocStubs summarises allocations; never nil, so that none encodes as [].
func AllocStubs(allocs []*structs.Allocation) []*api.AllocationListStub {
	return List(allocs, allocStub)
}

// AllocatedResourcesToAPI is Nomad's view of what a holds: its tasks'
// shares from TaskResources, the group's ephemeral_disk as the shared
// disk. Nil for an allocation that records no resources.
func AllocatedResourcesToAPI(a *structs.Allocation) *api.AllocatedResources {
	if a.Resources == nil && len(a.TaskResources) == 0 {
		return nil
	}
	out := &api.AllocatedResources{Tasks: make(map[string]*api.AllocatedTaskResources, len(a.TaskResources))}
	for name, r := range a.TaskResources {
		out.Tasks[name] = &api.AllocatedTaskResources{
			Cpu:    api.AllocatedCpuResources{CpuShares: int64(r.CPU)},
			Memory: api.AllocatedMemoryResources{MemoryMB: int64(r.MemoryMB), MemoryMaxMB: int64(r.MemoryMaxMB)},
		}
	}
	if tg := a.LookupTaskGroup(); tg != nil && tg.EphemeralDisk != nil {
		out.Shared.DiskMB = int64(tg.EphemeralDisk.SizeMB)
	}
	out.Shared.Networks = NetworksToAPI(a.Networks)
	out.Shared.Ports = portMappingsToAPI(a)
	return out
}

// maxRunDeadlineUnixNano is the allocation's max_run_duration deadline in
// Unix nanoseconds, or 0 (which the wire omits) when it has none.
func maxRunDeadlineUnixNano(a *structs.Allocation) int64 {
	deadline, ok := a.MaxRunDeadline()
	if !ok {
		return 0
	}
	return deadline.UnixNano()
}

func allocMetricToAPI(m *structs.AllocMetric) *api.AllocationMetric {
	if m == nil {
		return nil
	}
	out := api.AllocationMetric(*m)
	out.NodesAvailable = maps.Clone(m.NodesAvailable)
	out.ClassFiltered = maps.Clone(m.ClassFiltered)
	out.ConstraintFiltered = maps.Clone(m.ConstraintFiltered)
	out.ClassExhausted = maps.Clone(m.ClassExhausted)
	out.DimensionExhausted = maps.Clone(m.DimensionExhausted)
	out.QuotaExhausted = slices.Clone(m.QuotaExhausted)
	out.Scores = maps.Clone(m.Scores)
	return &out
}

func desiredTransitionToAPI(d structs.DesiredTransition) api.DesiredTransition {
	return api.DesiredTransition{
		Migrate:         clonePtr(d.Migrate),
		Reschedule:      clonePtr(d.Reschedule),
		ForceReschedule: clonePtr(d.ForceReschedule),
		NoShutdownDelay: clonePtr(d.NoShutdownDelay),
	}
}

func rescheduleTrackerToAPI(r *structs.RescheduleTracker) *api.RescheduleTracker {
	if r == nil {
		return nil
	}
	return &api.RescheduleTracker{
		Events: convertSlice(r.Events, func(e *structs.RescheduleEvent) *api.RescheduleEvent {
			if e == nil {
				return nil
			}
			out := api.RescheduleEvent(*e)
			return &out
		}),
		LastReschedule: r.LastReschedule,
	}
}

// taskStatesToAPI converts the allocation's task states, each with the
// deadline that applies to its task (structs.Allocation.TaskDeadline).
func taskStatesToAPI(a *structs.Allocation) map[string]*api.TaskState {
	if a.TaskStates == nil {
		return nil
	}
	out := make(map[string]*api.TaskState, len(a.TaskStates))
	for name, s := range a.TaskStates {
		out[name] = taskStateToAPI(s, a.TaskDeadline(name), a.TaskMaxRun(name).Exceeded)
		if w, ok := a.TaskWarning(name); ok && out[name] != nil {
			out[name].MaxRunWarningAt = w.At.UnixNano()
		}
	}
	return out
}

// taskStateToAPI converts a task state; deadline is the budget that applies
// to the task, and exceeded says whether its own limit killed it.
func taskStateToAPI(s *structs.TaskState, deadline structs.MaxRun, exceeded bool) *api.TaskState {
	if s == nil {
		return nil
	}
	out := &api.TaskState{
		State:           s.State,
		Failed:          s.Failed,
		Restarts:        s.Restarts,
		LastRestart:     s.LastRestart,
		StartedAt:       s.StartedAt,
		FinishedAt:      s.FinishedAt,
		Events:          convertSlice(s.Events, taskEventToAPI),
		RunnerStartedAt: s.RunnerStartedAt,
		MaxRunDuration:  deadline.Budget,
		MaxRunScope:     string(deadline.Scope),
		MaxRunExceeded:  exceeded,
		MaxRunWarnedAt:  s.MaxRunWarnedAt,
	}
	if deadline.HasDeadline() {
		out.MaxRunDeadline = deadline.Deadline.UnixNano()
	}
	return out
}

func taskEventToAPI(e *structs.TaskEvent) *api.TaskEvent {
	if e == nil {
		return nil
	}
	out := api.TaskEvent(*e)
	out.Details = maps.Clone(e.Details)
	return &out
}

// convertMap converts every value of a map; nil stays nil.
func convertMap[K comparable, V, W any](in map[K]V, convert func(V) W) map[K]W {
	if in == nil {
		return nil
	}
	out := make(map[K]W, len(in))
	for k, v := range in {
		out[k] = convert(v)
	}
	return out
}

// convertSlice converts every element of a slice; nil stays nil.
func convertSlice[V, W any](in []V, convert func(V) W) []W {
	if in == nil {
		return nil
	}
	out := make([]W, len(in))
	for i, v := range in {
		out[i] = convert(v)
	}
	return out
}

// List converts a list a response returns; never nil, so that an
// empty list encodes as [] rather than null.
func List[V, W any](in []V, convert func(V) W) []W {
	out := make([]W, 0, len(in))
	for _, v := range in {
		out = append(out, convert(v))
	}
	return out
}
