package structs

import (
	"maps"
	"reflect"
	"slices"
)

// The state store hands out shared pointers: readers must not modify what
// they get, and writers modify a Copy. Every Copy here is deep: the result
// shares no pointer, map or slice with the original, so that a writer can
// change any part of it.

// Copy returns a deep copy of the job.
func (j *Job) Copy() *Job {
	if j == nil {
		return nil
	}
	c := *j
	c.Datacenters = slices.Clone(j.Datacenters)
	c.Constraints = copyConstraints(j.Constraints)
	c.Affinities = copyAffinities(j.Affinities)
	c.Spreads = copySpreads(j.Spreads)
	c.Periodic = j.Periodic.Copy()
	c.ParameterizedJob = j.ParameterizedJob.Copy()
	c.Payload = slices.Clone(j.Payload)
	c.DispatchMaxRunDuration = clonePtr(j.DispatchMaxRunDuration)
	c.MaxRunDuration = clonePtr(j.MaxRunDuration)
	c.Deadline = clonePtr(j.Deadline)
	c.MaxPendingDuration = clonePtr(j.MaxPendingDuration)
	c.MaxRunExtension = clonePtr(j.MaxRunExtension)
	c.Reschedule = j.Reschedule.Copy()
	c.Update = j.Update.Copy()
	c.Meta = maps.Clone(j.Meta)
	c.TaskGroups = copyEach(j.TaskGroups, (*TaskGroup).Copy)
	return &c
}

// Copy returns a deep copy of the group.
func (tg *TaskGroup) Copy() *TaskGroup {
	if tg == nil {
		return nil
	}
	c := *tg
	c.Constraints = copyConstraints(tg.Constraints)
	c.Affinities = copyAffinities(tg.Affinities)
	c.Spreads = copySpreads(tg.Spreads)
	c.Volumes = copyMapValues(tg.Volumes, (*VolumeRequest).Copy)
	c.Tasks = copyEach(tg.Tasks, (*Task).Copy)
	c.RestartPolicy = tg.RestartPolicy.Copy()
	c.ReschedulePolicy = tg.ReschedulePolicy.Copy()
	c.Update = tg.Update.Copy()
	c.Meta = maps.Clone(tg.Meta)
	c.ShutdownDelay = clonePtr(tg.ShutdownDelay)
	c.MaxRunDuration = clonePtr(tg.MaxRunDuration)
	c.MinRunDuration = clonePtr(tg.MinRunDuration)
	c.MaxPendingDuration = clonePtr(tg.MaxPendingDuration)
	c.MaxRunExtension = clonePtr(tg.MaxRunExtension)
	c.OnFailure = copyEach(tg.OnFailure, (*OnFailureRule).Copy)
	c.EphemeralDisk = clonePtr(tg.EphemeralDisk)
	c.Networks = CopyNetworks(tg.Networks)
	c.Services = copyEach(tg.Services, (*Service).Copy)
	return &c
}

// Copy returns a deep copy of the task, its driver config included.
func (t *Task) Copy() *Task {
	if t == nil {
		return nil
	}
	c := *t
	c.Lifecycle = clonePtr(t.Lifecycle)
	c.Config = CopyConfig(t.Config)
	c.Constraints = copyConstraints(t.Constraints)
	c.Affinities = copyAffinities(t.Affinities)
	c.Env = maps.Clone(t.Env)
	c.Resources = clonePtr(t.Resources)
	c.Networks = CopyNetworks(t.Networks)
	c.RestartPolicy = t.RestartPolicy.Copy()
	c.Meta = maps.Clone(t.Meta)
	c.LogConfig = clonePtr(t.LogConfig)
	c.Artifacts = copyEach(t.Artifacts, (*TaskArtifact).Copy)
	c.MaxRunDuration = clonePtr(t.MaxRunDuration)
	c.MaxRunWarning = clonePtr(t.MaxRunWarning)
	c.Identity = t.Identity.Copy()
	c.DispatchPayload = clonePtr(t.DispatchPayload)
	c.Templates = copyEach(t.Templates, (*Template).Copy)
	c.VolumeMounts = copyEach(t.VolumeMounts, (*VolumeMount).Copy)
	c.Services = copyEach(t.Services, (*Service).Copy)
	return &c
}

// Copy returns a copy of the policy.
func (p *RestartPolicy) Copy() *RestartPolicy { return clonePtr(p) }

// Copy returns a copy of the policy.
func (p *ReschedulePolicy) Copy() *ReschedulePolicy { return clonePtr(p) }

// Copy returns a deep copy of the periodic config.
func (p *PeriodicConfig) Copy() *PeriodicConfig {
	if p == nil {
		return nil
	}
	c := *p
	c.Specs = slices.Clone(p.Specs)
	return &c
}

// Copy returns a deep copy of the artifact.
func (a *TaskArtifact) Copy() *TaskArtifact {
	if a == nil {
		return nil
	}
	c := *a
	c.GetterOptions = maps.Clone(a.GetterOptions)
	c.GetterHeaders = maps.Clone(a.GetterHeaders)
	return &c
}

// Copy returns a deep copy of the allocation, its job included.
func (a *Allocation) Copy() *Allocation {
	if a == nil {
		return nil
	}
	c := a.CopySkipJob()
	c.Job = a.Job.Copy()
	return c
}

// CopySkipJob returns a deep copy of the allocation that shares its Job.
// Stored jobs are never modified in place, so sharing one is safe for a
// writer that changes only the allocation.
func (a *Allocation) CopySkipJob() *Allocation {
	if a == nil {
		return nil
	}
	c := *a
	c.Resources = clonePtr(a.Resources)
	c.TaskResources = copyMapValues(a.TaskResources, clonePtr[Resources])
	c.Metrics = a.Metrics.Copy()
	c.DesiredTransition = a.DesiredTransition.Copy()
	c.TaskStates = copyMapValues(a.TaskStates, (*TaskState).Copy)
	c.RescheduleTracker = a.RescheduleTracker.Copy()
	c.PreemptedAllocations = slices.Clone(a.PreemptedAllocations)
	c.MaxRunOverride = clonePtr(a.MaxRunOverride)
	c.Networks = CopyNetworks(a.Networks)
	c.NetworkStatus = a.NetworkStatus.Copy()
	c.DeploymentStatus = a.DeploymentStatus.Copy()
	return &c
}

// Copy returns a copy whose flags point to fresh booleans.
func (d DesiredTransition) Copy() DesiredTransition {
	return DesiredTransition{
		Migrate:         clonePtr(d.Migrate),
		Reschedule:      clonePtr(d.Reschedule),
		ForceReschedule: clonePtr(d.ForceReschedule),
		NoShutdownDelay: clonePtr(d.NoShutdownDelay),
	}
}

// Copy returns a deep copy of the tracker.
func (r *RescheduleTracker) Copy() *RescheduleTracker {
	if r == nil {
		return nil
	}
	c := *r
	c.Events = copyEach(r.Events, clonePtr[RescheduleEvent])
	return &c
}

// Copy returns a deep copy of the metric.
func (m *AllocMetric) Copy() *AllocMetric {
	if m == nil {
		return nil
	}
	c := *m
	c.NodesAvailable = maps.Clone(m.NodesAvailable)
	c.ClassFiltered = maps.Clone(m.ClassFiltered)
	c.ConstraintFiltered = maps.Clone(m.ConstraintFiltered)
	c.ClassExhausted = maps.Clone(m.ClassExhausted)
	c.DimensionExhausted = maps.Clone(m.DimensionExhausted)
	c.QuotaExhausted = slices.Clone(m.QuotaExhausted)
	c.Scores = maps.Clone(m.Scores)
	return &c
}

// Copy returns a deep copy of the task state.
func (s *TaskState) Copy() *TaskState {
	if s == nil {
		return nil
	}
	c := *s
	c.Events = copyEach(s.Events, (*TaskEvent).Copy)
	return &c
}

// Copy returns a deep copy of the event.
func (e *TaskEvent) Copy() *TaskEvent {
	if e == nil {
		return nil
	}
	c := *e
	c.Details = maps.Clone(e.Details)
	return &c
}

// Copy returns a deep copy of the evaluation.
func (e *Evaluation) Copy() *Evaluation {
	if e == nil {
		return nil
	}
	c := *e
	c.FailedTGAllocs = copyMapValues(e.FailedTGAllocs, (*AllocMetric).Copy)
	c.ClassEligibility = maps.Clone(e.ClassEligibility)
	c.QueuedAllocations = maps.Clone(e.QueuedAllocations)
	c.PendingExpired = maps.Clone(e.PendingExpired)
	return &c
}

// Copy returns a deep copy of the node.
func (n *Node) Copy() *Node {
	if n == nil {
		return nil
	}
	c := *n
	c.Attributes = maps.Clone(n.Attributes)
	c.NodeResources = n.NodeResources.Copy()
	c.ReservedResources = clonePtr(n.ReservedResources)
	c.Links = maps.Clone(n.Links)
	c.Meta = maps.Clone(n.Meta)
	c.DrainStrategy = clonePtr(n.DrainStrategy)
	c.Events = copyEach(n.Events, (*NodeEvent).Copy)
	c.Drivers = copyMapValues(n.Drivers, (*DriverInfo).Copy)
	c.HostVolumes = copyMapValues(n.HostVolumes, (*ClientHostVolume).Copy)
	return &c
}

// Copy returns a deep copy of the event.
func (e *NodeEvent) Copy() *NodeEvent {
	if e == nil {
		return nil
	}
	c := *e
	c.Details = maps.Clone(e.Details)
	return &c
}

// Copy returns a deep copy of the driver fingerprint.
func (d *DriverInfo) Copy() *DriverInfo {
	if d == nil {
		return nil
	}
	c := *d
	c.Attributes = maps.Clone(d.Attributes)
	return &c
}

func copyConstraints(in []*Constraint) []*Constraint {
	return copyEach(in, clonePtr[Constraint])
}

// copyEach copies a slice, copying each element with copyElem; nil stays
// nil.
func copyEach[T any](in []T, copyElem func(T) T) []T {
	if in == nil {
		return nil
	}
	out := make([]T, len(in))
	for i, v := range in {
		out[i] = copyElem(v)
	}
	return out
}

// copyMapValues copies a map, copying each value with copyValue; nil stays
// nil.
func copyMapValues[K comparable, V any](in map[K]V, copyValue func(V) V) map[K]V {
	if in == nil {
		return nil
	}
	out := make(map[K]V, len(in))
	for k, v := range in {
		out[k] = copyValue(v)
	}
	return out
}

// CopyConfig deep-copies a driver config. Its values are whatever the
// jobspec or JSON decoder produced (nested maps and slices of any element
// type), so the copy walks them by reflection.
func CopyConfig(in map[string]any) map[string]any {
	if in == nil {
		return nil
	}
	out := make(map[string]any, len(in))
	for k, v := range in {
		out[k] = copyAny(v)
	}
	return out
}

func copyAny(v any) any {
	if v == nil {
		return nil
	}
	return copyValue(reflect.ValueOf(v)).Interface()
}

// copyValue copies maps, slices, arrays, pointers and interfaces deeply and
// returns every other value as it is (scalars are immutable). Structs are
// not expected in driver configs and are copied shallowly.
func copyValue(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type()).Elem()
		c.Set(copyValue(v.Elem()))
		return c
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeMapWithSize(v.Type(), v.Len())
		iter := v.MapRange()
		for iter.Next() {
			c.SetMapIndex(iter.Key(), copyValue(iter.Value()))
		}
		return c
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			c.Index(i).Set(copyValue(v.Index(i)))
		}
		return c
	case reflect.Array:
		c := reflect.New(v.Type()).Elem()
		for i := range v.Len() {
			c.Index(i).Set(copyValue(v.Index(i)))
		}
		return c
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type().Elem())
		c.Elem().Set(copyValue(v.Elem()))
		return c
	default:
		return v
	}
}

// clonePtr returns a new pointer to a copy of *p, or nil.
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
