package convert

import (
	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

// defaultUpdate is Nomad's update block for the fields one leaves out.
func defaultUpdate() structs.UpdateStrategy {
	return structs.UpdateStrategy{
		Stagger:          structs.DefaultUpdateStagger,
		MaxParallel:      structs.DefaultUpdateMaxParallel,
		HealthCheck:      structs.UpdateHealthChecks,
		MinHealthyTime:   structs.DefaultUpdateMinHealthyTime,
		HealthyDeadline:  structs.DefaultUpdateHealthyDeadline,
		ProgressDeadline: structs.DefaultUpdateProgressDeadline,
	}
}

// updateFromAPI lays the set fields of each block over Nomad's defaults,
// later blocks over earlier ones: (job) for the job's own, (job, group)
// for a group's, so that a group's update block inherits what it leaves
// out from the job's, as Nomad merges them. Nil when no block is given.
func updateFromAPI(blocks ...*api.UpdateStrategy) *structs.UpdateStrategy {
	var out *structs.UpdateStrategy
	for _, in := range blocks {
		if in == nil || updateEmpty(in) {
			continue
		}
		if out == nil {
			d := defaultUpdate()
			out = &d
		}
		setIf(&out.Stagger, in.Stagger)
		setIf(&out.MaxParallel, in.MaxParallel)
		setIf(&out.HealthCheck, in.HealthCheck)
		setIf(&out.MinHealthyTime, in.MinHealthyTime)
		setIf(&out.HealthyDeadline, in.HealthyDeadline)
		setIf(&out.ProgressDeadline, in.ProgressDeadline)
		setIf(&out.AutoRevert, in.AutoRevert)
		setIf(&out.AutoPromote, in.AutoPromote)
		setIf(&out.Canary, in.Canary)
	}
	return out
}

// updateEmpty reports whether a block sets nothing: a group inherits no
// empty job block, as in Nomad. A group's own empty block still asks
// for the defaults.
func updateEmpty(u *api.UpdateStrategy) bool {
	return u.Stagger == nil && u.MaxParallel == nil && u.HealthCheck == nil &&
		u.MinHealthyTime == nil && u.HealthyDeadline == nil && u.ProgressDeadline == nil &&
		u.AutoRevert == nil && u.AutoPromote == nil && u.Canary == nil
}

// groupUpdateFromAPI is a group's update block merged over the job's.
func groupUpdateFromAPI(job, group *api.UpdateStrategy) *structs.UpdateStrategy {
	if group != nil && updateEmpty(group) {
		if u := updateFromAPI(job); u != nil {
			return u
		}
		d := defaultUpdate()
		return &d
	}
	return updateFromAPI(job, group)
}

// jobUpdateFromAPI is the job's own update block; an empty one asks for
// the defaults.
func jobUpdateFromAPI(job *api.UpdateStrategy) *structs.UpdateStrategy {
	if job != nil && updateEmpty(job) {
		d := defaultUpdate()
		return &d
	}
	return updateFromAPI(job)
}

// UpdateToAPI converts an update block.
func UpdateToAPI(u *structs.UpdateStrategy) *api.UpdateStrategy {
	if u == nil {
		return nil
	}
	return &api.UpdateStrategy{
		Stagger:          new(u.Stagger),
		MaxParallel:      new(u.MaxParallel),
		HealthCheck:      new(u.HealthCheck),
		MinHealthyTime:   new(u.MinHealthyTime),
		HealthyDeadline:  new(u.HealthyDeadline),
		ProgressDeadline: new(u.ProgressDeadline),
		Canary:           new(u.Canary),
		AutoRevert:       new(u.AutoRevert),
		AutoPromote:      new(u.AutoPromote),
	}
}
