package gc

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/internal/fixture"
	"github.com/drover-io/drover/structs"
)

// base is the instant the tests' objects last changed at.
var base = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// world builds the objects of a plan.
type world struct {
	objs Objects
	node *structs.Node
}

func newWorld() *world {
	w := &world{node: fixture.Node(structs.GenerateUUID())}
	w.objs.Nodes = append(w.objs.Nodes, w.node)
	return w
}

// job adds a job in status, finished at base, with one evaluation and
// one allocation in the given states.
func (w *world) job(id, jobType, status, evalStatus, clientStatus string) *structs.Job {
	j := fixture.Job(id)
	j.Type = jobType
	j.Status = status
	j.SubmitTime = base.Add(-time.Hour).UnixNano()
	j.ModifyIndex = 7
	w.objs.Jobs = append(w.objs.Jobs, j)
	e := fixture.Eval(id)
	e.Type = jobType
	e.Status = evalStatus
	e.CreateTime, e.ModifyTime = base.Add(-time.Hour).UnixNano(), base.UnixNano()
	w.objs.Evals = append(w.objs.Evals, e)
	if clientStatus != "" {
		a := fixture.Alloc(j, w.node.ID)
		a.EvalID = e.ID
		a.ClientStatus = clientStatus
		a.CreateTime, a.ModifyTime = base.Add(-time.Hour).UnixNano(), base.UnixNano()
		if clientStatus != structs.AllocClientStatusRunning && clientStatus != structs.AllocClientStatusPending {
			a.DesiredStatus = structs.AllocDesiredStatusRun
		}
		w.objs.Allocs = append(w.objs.Allocs, a)
	}
	return j
}

func jobIDs(r *Result) []string {
	var ids []string
	for _, j := range r.Jobs {
		ids = append(ids, j.ID)
	}
	slices.Sort(ids)
	return ids
}

// TestPlan_jobThresholdAtItsInstant: a dead job goes exactly
// job_gc_threshold after it last changed, with its evaluation and
// allocation; not a nanosecond before.
func TestPlan_jobThresholdAtItsInstant(t *testing.T) {
	w := newWorld()
	w.job("done", structs.JobTypeBatch, structs.JobStatusDead, structs.EvalStatusComplete, structs.AllocClientStatusComplete)
	th := DefaultThresholds()

	r := Plan(w.objs, th, base.Add(th.Job-time.Nanosecond), false)
	must.Len(t, 0, r.Jobs)
	must.Len(t, 0, r.Allocs) // a batch job's allocations go with it

	r = Plan(w.objs, th, base.Add(th.Job), false)
	must.Eq(t, []string{"done"}, jobIDs(r))
	must.Len(t, 1, r.Evals)
	must.Len(t, 1, r.Allocs)
	must.Eq(t, 7, r.Jobs[0].ModifyIndex)
}

// TestPlan_neverWhatRunningWorkNeeds: a running job, a pending
// evaluation, an allocation its client still runs, a live periodic
// parent: none goes, forced or not.
func TestPlan_neverWhatRunningWorkNeeds(t *testing.T) {
	w := newWorld()
	w.job("running", structs.JobTypeBatch, structs.JobStatusRunning, structs.EvalStatusComplete, structs.AllocClientStatusRunning)
	w.job("pending", structs.JobTypeService, structs.JobStatusPending, structs.EvalStatusPending, "")
	w.job("blocked", structs.JobTypeService, structs.JobStatusPending, structs.EvalStatusBlocked, "")
	parent := fixture.PeriodicJob("cron")
	parent.Status = structs.JobStatusRunning
	w.objs.Jobs = append(w.objs.Jobs, parent)
	// A dead job whose allocation the client has not finished (the
	// server's view may say dead while the client still stops it).
	w.job("stopping", structs.JobTypeService, structs.JobStatusDead, structs.EvalStatusComplete, structs.AllocClientStatusRunning)

	for _, force := range []bool{false, true} {
		r := Plan(w.objs, DefaultThresholds(), base.Add(48*time.Hour), force)
		must.Len(t, 0, r.Jobs, must.Sprint("force ", force))
		for _, id := range r.Allocs {
			for _, a := range w.objs.Allocs {
				if a.ID == id {
					must.True(t, a.ClientTerminalStatus(), must.Sprint("collected a live allocation"))
				}
			}
		}
		for _, id := range r.Evals {
			for _, e := range w.objs.Evals {
				if e.ID == id {
					must.True(t, e.TerminalStatus(), must.Sprint("collected a live evaluation"))
				}
			}
		}
	}
}

// TestPlan_forceIgnoresThresholds: `system gc` collects a dead job at
// once.
func TestPlan_forceIgnoresThresholds(t *testing.T) {
	w := newWorld()
	w.job("done", structs.JobTypeService, structs.JobStatusDead, structs.EvalStatusComplete, structs.AllocClientStatusComplete)
	r := Plan(w.objs, DefaultThresholds(), base, true)
	must.Eq(t, []string{"done"}, jobIDs(r))
}

// TestPlan_ttlAfterFinished: a job's own TTL replaces the threshold,
// shorter or longer.
func TestPlan_ttlAfterFinished(t *testing.T) {
	w := newWorld()
	short := w.job("short", structs.JobTypeBatch, structs.JobStatusDead, structs.EvalStatusComplete, structs.AllocClientStatusComplete)
	short.TTLAfterFinished = 10 * time.Minute
	long := w.job("long", structs.JobTypeBatch, structs.JobStatusDead, structs.EvalStatusComplete, structs.AllocClientStatusFailed)
	long.TTLAfterFinished = 10 * time.Hour
	th := DefaultThresholds()

	must.Len(t, 0, Plan(w.objs, th, base.Add(10*time.Minute-1), false).Jobs)
	must.Eq(t, []string{"short"}, jobIDs(Plan(w.objs, th, base.Add(10*time.Minute), false)))
	// Past job_gc_threshold (4h), the long TTL still keeps its job.
	must.Eq(t, []string{"short"}, jobIDs(Plan(w.objs, th, base.Add(5*time.Hour), false)))
	must.Eq(t, []string{"long", "short"}, jobIDs(Plan(w.objs, th, base.Add(10*time.Hour), false)))
}

// TestPlan_keepLast: of a periodic job's dead children, those beyond the
// newest keep_last go at once; the newest stay past the threshold; a
// running child stays; the parent stays while live.
func TestPlan_keepLast(t *testing.T) {
	w := newWorld()
	parent := fixture.PeriodicJob("cron")
	parent.Status = structs.JobStatusRunning
	parent.Periodic.KeepLast = 2
	w.objs.Jobs = append(w.objs.Jobs, parent)
	for i := range 5 {
		c := w.job(fmt.Sprintf("cron/periodic-%d", 100+i), structs.JobTypeBatch, structs.JobStatusDead, structs.EvalStatusComplete, structs.AllocClientStatusComplete)
		c.ParentID = "cron"
		c.SubmitTime = base.Add(time.Duration(i) * time.Second).UnixNano()
	}
	running := w.job("cron/periodic-200", structs.JobTypeBatch, structs.JobStatusRunning, structs.EvalStatusComplete, structs.AllocClientStatusRunning)
	running.ParentID = "cron"
	running.SubmitTime = base.Add(time.Minute).UnixNano()

	want := []string{"cron/periodic-100", "cron/periodic-101", "cron/periodic-102"}
	must.Eq(t, want, jobIDs(Plan(w.objs, DefaultThresholds(), base, false)))
	// Long past every threshold, and forced: the newest two stay.
	must.Eq(t, want, jobIDs(Plan(w.objs, DefaultThresholds(), base.Add(1000*time.Hour), true)))
}

// TestPlan_stoppedParentGoesWithItsLastChild: a stopped periodic parent
// goes only when no child stays.
func TestPlan_stoppedParentGoesWithItsLastChild(t *testing.T) {
	w := newWorld()
	parent := fixture.PeriodicJob("cron")
	parent.Stop = true
	parent.Status = structs.JobStatusDead
	parent.SubmitTime = base.UnixNano()
	w.objs.Jobs = append(w.objs.Jobs, parent)
	child := w.job("cron/periodic-1", structs.JobTypeBatch, structs.JobStatusRunning, structs.EvalStatusComplete, structs.AllocClientStatusRunning)
	child.ParentID = "cron"

	must.Len(t, 0, Plan(w.objs, DefaultThresholds(), base, true).Jobs)
	child.Status = structs.JobStatusDead
	w.objs.Allocs[0].ClientStatus = structs.AllocClientStatusComplete
	must.Eq(t, []string{"cron", "cron/periodic-1"}, jobIDs(Plan(w.objs, DefaultThresholds(), base, true)))
}

// TestPlan_evalsOfLiveServiceJob: a live service job's old terminal
// evaluations go with their finished allocations after
// eval_gc_threshold, but its newest evaluation stays; a live batch job
// keeps its evaluations with allocations.
func TestPlan_evalsOfLiveServiceJob(t *testing.T) {
	w := newWorld()
	svc := w.job("web", structs.JobTypeService, structs.JobStatusRunning, structs.EvalStatusComplete, structs.AllocClientStatusFailed)
	oldEval, oldAlloc := w.objs.Evals[0], w.objs.Allocs[0]
	newer := fixture.Eval(svc.ID)
	newer.Type = structs.JobTypeService
	newer.Status = structs.EvalStatusComplete
	newer.CreateIndex = 10
	newer.ModifyTime = base.UnixNano()
	w.objs.Evals = append(w.objs.Evals, newer)
	run := fixture.Alloc(svc, w.node.ID)
	run.EvalID = newer.ID
	w.objs.Allocs = append(w.objs.Allocs, run)
	w.job("batch", structs.JobTypeBatch, structs.JobStatusRunning, structs.EvalStatusComplete, structs.AllocClientStatusComplete)

	th := DefaultThresholds()
	r := Plan(w.objs, th, base.Add(th.Eval-1), false)
	must.Len(t, 0, r.Evals)
	r = Plan(w.objs, th, base.Add(th.Eval), false)
	must.Eq(t, []string{oldEval.ID}, r.Evals)
	must.Eq(t, []string{oldAlloc.ID}, r.Allocs)
	must.Len(t, 0, r.Jobs)
	// Even a day on, the batch job's record stays.
	r = Plan(w.objs, th, base.Add(th.BatchEval), false)
	must.Eq(t, []string{oldEval.ID}, r.Evals)
}

// TestPlan_evalsOfPurgedBatchJob: evaluations of a batch job that is gone
// wait for batch_eval_gc_threshold.
func TestPlan_evalsOfPurgedBatchJob(t *testing.T) {
	w := newWorld()
	w.job("gone", structs.JobTypeBatch, structs.JobStatusDead, structs.EvalStatusComplete, structs.AllocClientStatusComplete)
	w.objs.Jobs = nil
	th := DefaultThresholds()
	must.Len(t, 0, Plan(w.objs, th, base.Add(th.BatchEval-1), false).Evals)
	r := Plan(w.objs, th, base.Add(th.BatchEval), false)
	must.Len(t, 1, r.Evals)
	must.Len(t, 1, r.Allocs)
}

// TestPlan_nodes: a node down for node_gc_threshold with nothing running
// goes; one with a running allocation, or ready, stays.
func TestPlan_nodes(t *testing.T) {
	w := newWorld()
	w.node.Status = structs.NodeStatusDown
	w.node.StatusUpdatedAt = base.UnixNano()
	busy := fixture.Node(structs.GenerateUUID())
	busy.Status = structs.NodeStatusDown
	busy.StatusUpdatedAt = base.UnixNano()
	ready := fixture.Node(structs.GenerateUUID())
	w.objs.Nodes = append(w.objs.Nodes, busy, ready)
	j := fixture.Job("svc")
	j.Status = structs.JobStatusRunning
	w.objs.Jobs = append(w.objs.Jobs, j)
	w.objs.Allocs = append(w.objs.Allocs, fixture.Alloc(j, busy.ID))

	th := DefaultThresholds()
	must.Len(t, 0, Plan(w.objs, th, base.Add(th.Node-1), false).Nodes)
	r := Plan(w.objs, th, base.Add(th.Node), false)
	must.Len(t, 1, r.Nodes)
	must.Eq(t, w.node.ID, r.Nodes[0].ID)
}
