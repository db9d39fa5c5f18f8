package gc

import (
	"cmp"
	"slices"
	"time"

	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// Thresholds are how long an object stays after it turned terminal, as
// Nomad's server block names them.
type Thresholds struct {
	// Job is job_gc_threshold: a dead job, with what it holds.
	Job time.Duration
	// Eval is eval_gc_threshold: a terminal evaluation of a service or
	// system job, with its allocations.
	Eval time.Duration
	// BatchEval is batch_eval_gc_threshold: the same for batch and
	// sysbatch jobs whose job is gone.
	BatchEval time.Duration
	// Node is node_gc_threshold: a node down that long with nothing
	// running on it.
	Node time.Duration
}

// Nomad's defaults.
const (
	DefaultInterval           = 5 * time.Minute
	DefaultJobThreshold       = 4 * time.Hour
	DefaultEvalThreshold      = time.Hour
	DefaultBatchEvalThreshold = 24 * time.Hour
	DefaultNodeThreshold      = 24 * time.Hour
)

// DefaultThresholds are Nomad's defaults.
func DefaultThresholds() Thresholds {
	return Thresholds{
		Job:       DefaultJobThreshold,
		Eval:      DefaultEvalThreshold,
		BatchEval: DefaultBatchEvalThreshold,
		Node:      DefaultNodeThreshold,
	}
}

// Objects is the part of the state a plan looks at.
type Objects struct {
	Jobs   []*structs.Job
	Evals  []*structs.Evaluation
	Allocs []*structs.Allocation
	Nodes  []*structs.Node
}

// Result is what one pass collects.
type Result = state.Garbage

// jobKey names a job within the state.
type jobKey struct{ namespace, id string }

// planner holds the state's objects indexed for one pass.
type planner struct {
	th    Thresholds
	now   time.Time
	force bool

	jobs          map[jobKey]*structs.Job
	children      map[jobKey][]*structs.Job
	evalsByJob    map[jobKey][]*structs.Evaluation
	allocsByJob   map[jobKey][]*structs.Allocation
	allocsByEval  map[string][]*structs.Allocation
	evalIDs       map[string]bool
	nodes         map[string]*structs.Node
	collectedJobs map[jobKey]bool
	decided       map[jobKey]bool
	// deadRank is, per periodic parent, each dead child's place, newest
	// first (keepLast).
	deadRank map[jobKey]map[*structs.Job]int
}

// Plan decides what a pass collects at now. A forced pass (`system gc`)
// ignores the thresholds and ttl_after_finished, but never collects what
// a running job needs, nor the newest keep_last dead children of a
// periodic job.
func Plan(objs Objects, th Thresholds, now time.Time, force bool) *Result {
	p := &planner{
		th: th, now: now, force: force,
		jobs:          make(map[jobKey]*structs.Job, len(objs.Jobs)),
		children:      make(map[jobKey][]*structs.Job),
		evalsByJob:    make(map[jobKey][]*structs.Evaluation),
		allocsByJob:   make(map[jobKey][]*structs.Allocation),
		allocsByEval:  make(map[string][]*structs.Allocation),
		evalIDs:       make(map[string]bool, len(objs.Evals)),
		nodes:         make(map[string]*structs.Node, len(objs.Nodes)),
		collectedJobs: make(map[jobKey]bool),
		decided:       make(map[jobKey]bool),
		deadRank:      make(map[jobKey]map[*structs.Job]int),
	}
	for _, j := range objs.Jobs {
		p.jobs[jobKey{j.Namespace, j.ID}] = j
		if j.ParentID != "" {
			k := jobKey{j.Namespace, j.ParentID}
			p.children[k] = append(p.children[k], j)
		}
	}
	for _, e := range objs.Evals {
		k := jobKey{e.Namespace, e.JobID}
		p.evalsByJob[k] = append(p.evalsByJob[k], e)
		p.evalIDs[e.ID] = true
	}
	for _, a := range objs.Allocs {
		k := jobKey{a.Namespace, a.JobID}
		p.allocsByJob[k] = append(p.allocsByJob[k], a)
		p.allocsByEval[a.EvalID] = append(p.allocsByEval[a.EvalID], a)
	}
	for _, n := range objs.Nodes {
		p.nodes[n.ID] = n
	}

	res := &Result{}
	gone := map[string]bool{} // allocations already in res
	for _, j := range objs.Jobs {
		if !p.collectJob(j) {
			continue
		}
		k := jobKey{j.Namespace, j.ID}
		res.Jobs = append(res.Jobs, state.GarbageJob{Namespace: j.Namespace, ID: j.ID, ModifyIndex: j.ModifyIndex})
		for _, e := range p.evalsByJob[k] {
			res.Evals = append(res.Evals, e.ID)
		}
		for _, a := range p.allocsByJob[k] {
			res.Allocs = append(res.Allocs, a.ID)
			gone[a.ID] = true
		}
	}
	p.collectEvals(res, gone)
	p.collectNodes(res, gone, objs.Allocs)
	return res
}

// collectJob reports whether a job goes in this pass, deciding its
// children first: a parent goes only with the last of them.
func (p *planner) collectJob(j *structs.Job) bool {
	k := jobKey{j.Namespace, j.ID}
	if p.decided[k] {
		return p.collectedJobs[k]
	}
	p.decided[k] = true // a cycle of parents decides "keep"
	ok := p.jobCollectable(j)
	p.collectedJobs[k] = ok
	return ok
}

func (p *planner) jobCollectable(j *structs.Job) bool {
	k := jobKey{j.Namespace, j.ID}
	if j.LaunchesChildren() && !j.Stop {
		return false // a live periodic or parameterized parent
	}
	if j.Status != structs.JobStatusDead {
		return false
	}
	for _, c := range p.children[k] {
		if !p.collectJob(c) {
			return false
		}
	}
	for _, e := range p.evalsByJob[k] {
		if !e.TerminalStatus() {
			return false
		}
	}
	for _, a := range p.allocsByJob[k] {
		if !p.allocDone(a) {
			return false
		}
	}
	finished := p.finished(j)
	if keep, decided := p.keepLast(j); decided {
		if keep {
			// Among the newest it keeps: only its own TTL removes it.
			_, expired := j.TTLExpired(finished, p.now)
			return expired
		}
		return true
	}
	if p.force {
		return true
	}
	if set, expired := j.TTLExpired(finished, p.now); set {
		return expired
	}
	return !p.now.Before(finished.Add(p.th.Job))
}

// keepLast applies a periodic parent's keep_last to a dead child: decided
// reports whether it applies, keep whether the child is among the newest
// it keeps.
func (p *planner) keepLast(j *structs.Job) (keep, decided bool) {
	if j.ParentID == "" {
		return false, false
	}
	parent := p.jobs[jobKey{j.Namespace, j.ParentID}]
	if parent == nil || parent.Periodic == nil || parent.Periodic.KeepLast <= 0 {
		return false, false
	}
	pk := jobKey{j.Namespace, j.ParentID}
	ranks, ok := p.deadRank[pk]
	if !ok {
		var dead []*structs.Job
		for _, c := range p.children[pk] {
			if c.Status == structs.JobStatusDead {
				dead = append(dead, c)
			}
		}
		// Newest first: by launch, then ID.
		slices.SortFunc(dead, func(a, b *structs.Job) int {
			return cmp.Or(cmp.Compare(b.SubmitTime, a.SubmitTime), cmp.Compare(b.ID, a.ID))
		})
		ranks = make(map[*structs.Job]int, len(dead))
		for i, c := range dead {
			ranks[c] = i
		}
		p.deadRank[pk] = ranks
	}
	rank, ok := ranks[j]
	if !ok {
		return false, false
	}
	return rank < parent.Periodic.KeepLast, true
}

// finished is when a job last changed: its submission, or the latest
// change of its evaluations and allocations.
func (p *planner) finished(j *structs.Job) time.Time {
	k := jobKey{j.Namespace, j.ID}
	last := j.SubmitTime
	for _, e := range p.evalsByJob[k] {
		last = max(last, e.ModifyTime, e.CreateTime)
	}
	for _, a := range p.allocsByJob[k] {
		last = max(last, a.ModifyTime, a.CreateTime)
	}
	return time.Unix(0, last)
}

// allocDone reports whether an allocation has finished for good: its
// client says so, or the server stopped it and its node is gone or down,
// so no client will run it.
func (p *planner) allocDone(a *structs.Allocation) bool {
	if a.ClientTerminalStatus() {
		return true
	}
	if !a.TerminalStatus() {
		return false
	}
	n := p.nodes[a.NodeID]
	return n == nil || n.Status == structs.NodeStatusDown
}

// collectEvals adds the old terminal evaluations of jobs that stay (or
// are gone), each with its allocations, and allocations left without an
// evaluation.
func (p *planner) collectEvals(res *Result, gone map[string]bool) {
	for k, evals := range p.evalsByJob {
		if p.collectedJobs[k] {
			continue
		}
		job := p.jobs[k]
		newest := newestEval(evals, job)
		for _, e := range evals {
			if e == newest || !e.TerminalStatus() || !p.old(e.ModifyTime, p.evalThreshold(e.Type, job)) {
				continue
			}
			allocs := p.allocsByEval[e.ID]
			if !p.allocsCollectable(allocs, job) {
				continue
			}
			res.Evals = append(res.Evals, e.ID)
			for _, a := range allocs {
				if !gone[a.ID] {
					res.Allocs = append(res.Allocs, a.ID)
					gone[a.ID] = true
				}
			}
		}
	}
	for k, allocs := range p.allocsByJob {
		if p.collectedJobs[k] {
			continue
		}
		job := p.jobs[k]
		for _, a := range allocs {
			if gone[a.ID] || p.evalIDs[a.EvalID] {
				continue
			}
			if !p.allocsCollectable([]*structs.Allocation{a}, job) {
				continue
			}
			if p.old(a.ModifyTime, p.evalThreshold(allocJobType(a), job)) {
				res.Allocs = append(res.Allocs, a.ID)
				gone[a.ID] = true
			}
		}
	}
	slices.Sort(res.Evals)
	slices.Sort(res.Allocs)
}

// newestEval is the latest evaluation of a live job, which stays: the
// job's status is derived from it. Nil when the job is gone.
func newestEval(evals []*structs.Evaluation, job *structs.Job) *structs.Evaluation {
	if job == nil {
		return nil
	}
	var newest *structs.Evaluation
	for _, e := range evals {
		if newest == nil || e.CreateIndex > newest.CreateIndex {
			newest = e
		}
	}
	return newest
}

// allocsCollectable reports whether allocations of job (nil if gone) may
// go without the job: each has finished for good, and they are not the
// record of a batch job that is not dead, whose finished allocations tell
// the scheduler which groups have run; those go with the job.
func (p *planner) allocsCollectable(allocs []*structs.Allocation, job *structs.Job) bool {
	if len(allocs) > 0 && job != nil && isBatch(job.Type) {
		// They go with the job, once it is dead and old enough.
		return false
	}
	for _, a := range allocs {
		if !p.allocDone(a) {
			return false
		}
	}
	return true
}

// evalThreshold is the threshold of an evaluation of a job of jobType.
func (p *planner) evalThreshold(jobType string, job *structs.Job) time.Duration {
	if isBatch(jobType) || (job != nil && isBatch(job.Type)) {
		return p.th.BatchEval
	}
	return p.th.Eval
}

// old reports whether something last changed at unixNano is past
// threshold, or the pass is forced.
func (p *planner) old(unixNano int64, threshold time.Duration) bool {
	return p.force || !p.now.Before(time.Unix(0, unixNano).Add(threshold))
}

// collectNodes adds the nodes down for longer than the node threshold
// that hold no allocation that is not terminal.
func (p *planner) collectNodes(res *Result, gone map[string]bool, allocs []*structs.Allocation) {
	busy := map[string]bool{}
	for _, a := range allocs {
		if !gone[a.ID] && !a.TerminalStatus() {
			busy[a.NodeID] = true
		}
	}
	for _, n := range p.nodes {
		if n.Status != structs.NodeStatusDown || busy[n.ID] || !p.old(n.StatusUpdatedAt, p.th.Node) {
			continue
		}
		res.Nodes = append(res.Nodes, state.GarbageNode{ID: n.ID, ModifyIndex: n.ModifyIndex})
	}
	slices.SortFunc(res.Nodes, func(a, b state.GarbageNode) int { return cmp.Compare(a.ID, b.ID) })
}

func isBatch(jobType string) bool {
	return jobType == structs.JobTypeBatch || jobType == structs.JobTypeSysbatch
}

// allocJobType is the type of the job an allocation runs, "" if it
// carries none.
func allocJobType(a *structs.Allocation) string {
	if a.Job == nil {
		return ""
	}
	return a.Job.Type
}
