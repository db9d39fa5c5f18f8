package state

import (
	"slices"
	"testing"

	"github.com/drover-io/drover/structs"
	"github.com/shoenig/test/must"
)

func TestIndex_EmptyStore(t *testing.T) {
	s := newStore(t)
	for table, idx := range tableIndexes(t, s) {
		must.Eq(t, 0, idx, must.Sprintf("table %s", table))
	}
	latest, err := s.LatestIndex()
	must.NoError(t, err)
	must.Eq(t, 0, latest)
}

// TestIndex_BumpedPerTable applies one write of each kind, in order, and
// checks that exactly the tables it touches carry its index.
func TestIndex_BumpedPerTable(t *testing.T) {
	s := newStore(t)
	job := testJob("example")
	eval := testEval(job)
	alloc := testAlloc(job, eval.ID, "node-1")

	steps := []struct {
		name   string
		write  func(index uint64) error
		tables []string
	}{
		{"upsert job", func(i uint64) error { return s.UpsertJob(i, job) },
			[]string{TableJobs, TableJobVersions}},
		{"update job status", func(i uint64) error {
			return s.UpdateJobStatus(i, job.Namespace, job.ID, structs.JobStatusRunning, "")
		}, []string{TableJobs, TableJobVersions}},
		{"upsert evals", func(i uint64) error { return s.UpsertEvals(i, []*structs.Evaluation{eval}) },
			[]string{TableEvals}},
		{"upsert allocs", func(i uint64) error { return s.UpsertAllocs(i, []*structs.Allocation{alloc}) },
			[]string{TableAllocs}},
		{"update allocs from client", func(i uint64) error {
			return s.UpdateAllocsFromClient(i, []*structs.Allocation{{ID: alloc.ID, ClientStatus: structs.AllocClientStatusRunning}})
		}, []string{TableAllocs}},
		{"update alloc desired status", func(i uint64) error {
			return s.UpdateAllocDesiredStatus(i, []string{alloc.ID}, structs.AllocDesiredStatusStop, "")
		}, []string{TableAllocs}},
		{"upsert node", func(i uint64) error { return s.UpsertNode(i, testNode("node-1")) },
			[]string{TableNodes}},
		{"update node status", func(i uint64) error {
			return s.UpdateNodeStatus(i, "node-1", structs.NodeStatusDown, 1)
		}, []string{TableNodes}},
		{"update node eligibility", func(i uint64) error {
			return s.UpdateNodeEligibility(i, "node-1", structs.NodeSchedulingIneligible, 1)
		}, []string{TableNodes}},
		{"update node drain", func(i uint64) error {
			return s.UpdateNodeDrain(i, "node-1", &structs.DrainStrategy{}, false, 1)
		}, []string{TableNodes}},
		{"upsert periodic launch", func(i uint64) error {
			return s.UpsertPeriodicLaunch(i, &PeriodicLaunch{ID: job.ID, Namespace: job.Namespace})
		}, []string{TablePeriodicLaunch}},
		{"delete node", func(i uint64) error { return s.DeleteNode(i, []string{"node-1"}) },
			[]string{TableNodes}},
		{"delete evals", func(i uint64) error { return s.DeleteEvals(i, []string{eval.ID}, []string{alloc.ID}) },
			[]string{TableEvals, TableAllocs}},
		{"delete job", func(i uint64) error { return s.DeleteJob(i, job.Namespace, job.ID) },
			[]string{TableJobs, TableJobVersions, TablePeriodicLaunch}},
	}
	for i, step := range steps {
		index := uint64(100 + i)
		must.NoError(t, step.write(index), must.Sprint(step.name))
		var bumped []string
		for table, idx := range tableIndexes(t, s) {
			if idx == index {
				bumped = append(bumped, table)
			}
		}
		slices.Sort(bumped)
		want := slices.Sorted(slices.Values(step.tables))
		must.Eq(t, want, bumped, must.Sprint(step.name))

		latest, err := s.LatestIndex()
		must.NoError(t, err)
		must.Eq(t, index, latest, must.Sprint(step.name))
	}
}

func TestIndex_NeverGoesBack(t *testing.T) {
	s := newStore(t)
	must.NoError(t, s.UpsertNode(50, testNode("node-1")))
	must.NoError(t, s.UpsertNode(40, testNode("node-2")))
	idx, err := s.Index(TableNodes)
	must.NoError(t, err)
	must.Eq(t, 50, idx)
}
