package scheduler

import (
	"encoding/json"
	"maps"
	"reflect"

	"github.com/drover-io/drover/structs"
)

// needsNewAlloc reports whether moving an allocation from the old version
// of its group to the new one means replacing it: a change of what its
// tasks run, how, and with what resources (the group's ephemeral_disk
// included). Everything else (the job's
// meta, max_run_duration, restart and reschedule policies, kill timeout
// and signal, shutdown delay) the client applies to the running
// allocation. Placement (datacenters, pool, constraints) is not judged
// here: an in-place update also needs the node to remain feasible, and
// the same affinities and spreads (preferencesChanged).
func needsNewAlloc(old, next *structs.TaskGroup) bool {
	if old == nil || next == nil || len(old.Tasks) != len(next.Tasks) {
		return true
	}
	if !maps.Equal(old.Meta, next.Meta) {
		return true // group meta reaches the tasks' environment
	}
	if !equalPtr(old.EphemeralDisk, next.EphemeralDisk) {
		return true // the allocation holds its disk on the node
	}
	if !reflect.DeepEqual(old.Networks, next.Networks) {
		return true // the allocation holds its ports on the node
	}
	if volumesChanged(old, next) {
		return true
	}
	for _, nt := range next.Tasks {
		ot := old.LookupTask(nt.Name)
		if ot == nil || taskNeedsNewAlloc(ot, nt) {
			return true
		}
	}
	return false
}

func taskNeedsNewAlloc(old, next *structs.Task) bool {
	switch {
	case old.Driver != next.Driver, old.User != next.User:
		return true
	case !maps.Equal(old.Env, next.Env), !maps.Equal(old.Meta, next.Meta):
		return true
	case !equalPtr(old.Resources, next.Resources), !equalPtr(old.Lifecycle, next.Lifecycle):
		return true
	case !equalPtr(old.LogConfig, next.LogConfig):
		return true
	case !equalArtifacts(old.Artifacts, next.Artifacts):
		return true
	case volumeMountsChanged(old, next):
		return true
	case !reflect.DeepEqual(old.Identity, next.Identity):
		// The token is handed over as the task starts.
		return true
	}
	return !equalConfig(old.Config, next.Config)
}

func equalPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func equalArtifacts(a, b []*structs.TaskArtifact) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// equalConfig compares driver configs. A config that went through JSON
// (the raft log, a snapshot) may hold float64 where the other holds int;
// the JSON forms of equal configs are equal.
func equalConfig(a, b map[string]any) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

// sameVersion reports whether an allocation's job is the job's current
// version. An allocation without a job is taken to run the current one.
func sameVersion(allocJob, job *structs.Job) bool {
	if allocJob == nil || allocJob == job {
		return true
	}
	return allocJob.CreateIndex == job.CreateIndex && allocJob.Version == job.Version
}

// tryInPlace updates a live allocation of an older job version to the
// current one without replacing it, if its tasks are unchanged and its
// node can still run the group. It reports whether it did.
func (ctx *planContext) tryInPlace(alloc *structs.Allocation, p *groupPlacer) bool {
	if needsNewAlloc(alloc.LookupTaskGroup(), p.checker.tg) || preferencesChanged(alloc.Job, ctx.job, alloc.TaskGroup) {
		return false
	}
	node, pos := ctx.nodes.node(alloc.NodeID)
	if node == nil || node.Status == structs.NodeStatusDown || !ctx.scope.contains(node) {
		return false
	}
	if ok, _ := p.checker.static(pos, node); !ok {
		return false
	}
	if ok, _ := p.checker.volumes.forIndex(node, alloc.Index()); !ok {
		return false
	}
	ctx.jobAllocs.removeAlloc(alloc)
	ok, _ := ctx.jobAllocs.distinct(p.checker, node)
	ctx.jobAllocs.addAlloc(alloc)
	if !ok {
		return false
	}
	updated := *alloc
	updated.Job = ctx.job
	updated.EvalID = ctx.eval.ID
	if id := ctx.deploy.ID(p.checker.tg, p.checker.tg.Count); id != "" && id != alloc.DeploymentID {
		// The allocation runs the deployment's version now: its health
		// there is judged afresh.
		updated.DeploymentID = id
		updated.DeploymentStatus = nil
	}
	ctx.plan.AppendAlloc(&updated)
	return true
}
