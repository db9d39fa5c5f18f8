package scheduler

import (
	"fmt"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// affinityRun places one allocation of a job of jobType with affs (set on
// the job, group or task by set) on two nodes that both fit it, racks r0
// and r1, and returns the rack it landed on.
func affinityRun(t *testing.T, jobType string, set func(*structs.Job, []*structs.Affinity), affs ...*structs.Affinity) string {
	t.Helper()
	h := newHarness(t)
	h.addNodes(2, nil) // mockNode gives node i the rack r<i%4>
	job := mockJob(jobType, 1)
	set(job, affs)
	job = h.runJob(job)
	allocs := h.allocs(job)
	must.SliceLen(t, 1, allocs)
	return rackOf(allocs[0].NodeName)
}

func onJob(j *structs.Job, as []*structs.Affinity)   { j.Affinities = as }
func onGroup(j *structs.Job, as []*structs.Affinity) { j.TaskGroups[0].Affinities = as }
func onTask(j *structs.Job, as []*structs.Affinity)  { j.TaskGroups[0].Tasks[0].Affinities = as }

func rackAffinity(rack string, weight int8) *structs.Affinity {
	return &structs.Affinity{LTarget: "${meta.rack}", RTarget: rack, Operand: "=", Weight: weight}
}

// TestAffinity_PrefersAndAvoids: where both nodes fit, a positive affinity
// always lands on the node it names and a negative one never does,
// whether the job, the group or a task sets it, for every job type that
// ranks nodes. Nodes are shuffled anew for each run.
func TestAffinity_PrefersAndAvoids(t *testing.T) {
	for _, jobType := range []string{structs.JobTypeBatch, structs.JobTypeService} {
		for name, set := range map[string]func(*structs.Job, []*structs.Affinity){"job": onJob, "group": onGroup, "task": onTask} {
			t.Run(jobType+"/"+name, func(t *testing.T) {
				for range 10 {
					must.Eq(t, "r1", affinityRun(t, jobType, set, rackAffinity("r1", 50)))
					must.Eq(t, "r0", affinityRun(t, jobType, set, rackAffinity("r1", -100)))
				}
			})
		}
	}
}

// TestAffinity_WeightsAdd: the node with the larger sum of matched
// weights wins.
func TestAffinity_WeightsAdd(t *testing.T) {
	for range 10 {
		got := affinityRun(t, structs.JobTypeBatch, onGroup, rackAffinity("r0", 30), rackAffinity("r1", 60))
		must.Eq(t, "r1", got)
		got = affinityRun(t, structs.JobTypeBatch, onGroup,
			rackAffinity("r0", 30), rackAffinity("r1", 60),
			&structs.Affinity{LTarget: "${node.unique.name}", RTarget: "node-0000", Operand: "=", Weight: 40})
		must.Eq(t, "r0", got)
	}
}

// TestAffinity_DoesNotFilter: a node an affinity prefers that cannot take
// the allocation leaves it to the others, and a node every affinity
// avoids still takes it when it is the only one.
func TestAffinity_DoesNotFilter(t *testing.T) {
	h := newHarness(t)
	nodes := h.addNodes(2, func(i int, n *structs.Node) {
		if i == 1 {
			n.NodeResources.Memory.MemoryMB = 300 // less than the 256 + reserved 256 it needs
		}
	})
	job := mockJob(structs.JobTypeBatch, 1)
	job.Affinities = []*structs.Affinity{rackAffinity("r1", 100)}
	job = h.runJob(job)
	allocs := h.allocs(job)
	must.SliceLen(t, 1, allocs)
	must.Eq(t, nodes[0].ID, allocs[0].NodeID)

	h = newHarness(t)
	nodes = h.addNodes(1, nil)
	job = mockJob(structs.JobTypeBatch, 1)
	job.Affinities = []*structs.Affinity{rackAffinity("r0", -100)}
	job = h.runJob(job)
	allocs = h.allocs(job)
	must.SliceLen(t, 1, allocs)
	must.Eq(t, nodes[0].ID, allocs[0].NodeID)
}

// TestAffinity_Metrics: the affinity score is recorded for the node as
// Nomad names it, and only where an affinity matched.
func TestAffinity_Metrics(t *testing.T) {
	h := newHarness(t)
	nodes := h.addNodes(2, nil)
	job := mockJob(structs.JobTypeBatch, 1)
	job.Affinities = []*structs.Affinity{rackAffinity("r1", 50), rackAffinity("r9", -50)}
	job = h.runJob(job)
	allocs := h.allocs(job)
	must.SliceLen(t, 1, allocs)
	must.Eq(t, nodes[1].ID, allocs[0].NodeID)
	scores := allocs[0].Metrics.Scores
	must.Eq(t, 0.5, scores[nodes[1].ID+"."+scorerNodeAffinity])
	_, has := scores[nodes[0].ID+"."+scorerNodeAffinity]
	must.False(t, has)
}

// rackOf is the rack mockNode gives the node it names node-<i>.
func rackOf(nodeName string) string {
	var i int
	fmt.Sscanf(nodeName, "node-%d", &i)
	return fmt.Sprintf("r%d", i%4)
}
