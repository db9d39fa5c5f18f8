package nomad

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/hashicorp/go-memdb"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// readServer is a leader that schedules nothing, so that only the test
// writes to its state.
func readServer(t *testing.T) *Server {
	t.Helper()
	s := startServer(t, unscheduledConfig(t, "reads"))
	waitForLeader(t, s)
	return s
}

// applyLogEntry writes an entry through raft and returns its index.
func applyLogEntry(t *testing.T, s *Server, entry logentry.Entry) uint64 {
	t.Helper()
	index, err := s.Apply(testCtx(t), entry.MessageType(), entry)
	must.NoError(t, err)
	return index
}

func registerTestJob(t *testing.T, s *Server, job *structs.Job) uint64 {
	t.Helper()
	return applyLogEntry(t, s, &logentry.JobRegister{Job: job})
}

// evalsAt is a read of the evaluation table that tells runs on each time
// it runs.
func evalsAt(runs chan<- uint64) readFn[[]*structs.Evaluation] {
	return func(ws memdb.WatchSet, st *state.StateStore) ([]*structs.Evaluation, uint64, error) {
		evals, err := st.Evals(ws)
		if err != nil {
			return nil, 0, err
		}
		index, err := st.Index(state.TableEvals)
		runs <- index
		return evals, index, err
	}
}

func TestRead_blocksUntilTheIndexPassesMinIndex(t *testing.T) {
	s := readServer(t)
	minIndex := applyLogEntry(t, s, &logentry.EvalUpdate{Evals: []*structs.Evaluation{testEval("first")}})

	runs := make(chan uint64, 10)
	type result struct {
		evals []*structs.Evaluation
		meta  QueryMeta
		err   error
	}
	done := make(chan result, 1)
	go func() {
		evals, meta, err := read(s, testCtx(t), QueryOptions{MinIndex: minIndex, MaxWait: time.Minute}, evalsAt(runs))
		done <- result{evals, meta, err}
	}()

	// The first run finds nothing new, so the read waits; only then is
	// there a write, which the answer must hold.
	must.Eq(t, minIndex, <-runs)
	later := applyLogEntry(t, s, &logentry.EvalUpdate{Evals: []*structs.Evaluation{testEval("second")}})

	var r result
	select {
	case r = <-done:
	case <-time.After(leaderWait):
		t.Fatal("the read did not return after a write")
	}
	must.NoError(t, r.err)
	must.Eq(t, later, r.meta.Index)
	must.SliceLen(t, 2, r.evals)
	must.True(t, r.meta.KnownLeader)
	must.Eq(t, 0, r.meta.LastContact, must.Sprint("the leader answered"))
}

func TestRead_withoutMinIndexAnswersAtOnce(t *testing.T) {
	s := readServer(t)
	index := applyLogEntry(t, s, &logentry.EvalUpdate{Evals: []*structs.Evaluation{testEval("first")}})
	runs := make(chan uint64, 1)
	evals, meta, err := read(s, testCtx(t), QueryOptions{}, evalsAt(runs))
	must.NoError(t, err)
	must.SliceLen(t, 1, evals)
	must.Eq(t, index, meta.Index)
	must.Eq(t, index, <-runs)
}

// TestRead_waitEndsWithTheLatestResult: when nothing changes, a blocking
// read returns, without error, what it last read once its wait is over.
func TestRead_waitEndsWithTheLatestResult(t *testing.T) {
	s := readServer(t)
	index := registerTestJob(t, s, testJob("web"))

	start := time.Now()
	job, meta, err := s.GetJob(testCtx(t), "web", QueryOptions{Namespace: structs.DefaultNamespace, MinIndex: index, MaxWait: 50 * time.Millisecond})
	elapsed := time.Since(start)
	must.NoError(t, err)
	must.Eq(t, "web", job.ID)
	must.Eq(t, index, meta.Index)
	must.GreaterEq(t, 50*time.Millisecond, elapsed)
	must.Less(t, leaderWait, elapsed)
}

// TestRead_endsWithItsContext: the caller going away ends a blocking read.
func TestRead_endsWithItsContext(t *testing.T) {
	s := readServer(t)
	index := registerTestJob(t, s, testJob("web"))
	ctx, cancel := context.WithCancel(testCtx(t))
	cancel()
	_, meta, err := s.GetJob(ctx, "web", QueryOptions{Namespace: structs.DefaultNamespace, MinIndex: index, MaxWait: time.Hour})
	must.NoError(t, err)
	must.Eq(t, index, meta.Index)
}

func TestRead_withoutLeaderNeedsAllowStale(t *testing.T) {
	cfg := unscheduledConfig(t, "lonely")
	cfg.BootstrapExpect = 3 // never forms: nobody else exists
	s := startServer(t, cfg)

	_, _, err := s.ListJobs(testCtx(t), QueryOptions{Namespace: structs.DefaultNamespace})
	must.ErrorIs(t, err, ErrNoLeader)

	jobs, meta, err := s.ListJobs(testCtx(t), QueryOptions{Namespace: structs.DefaultNamespace, AllowStale: true, ACL: acl.Management()})
	must.NoError(t, err)
	must.SliceEmpty(t, jobs)
	must.False(t, meta.KnownLeader)
}

// TestRead_followsARestoredStore: a read blocked on a store that a snapshot
// restore replaces reads the new store.
func TestRead_followsARestoredStore(t *testing.T) {
	s := readServer(t)
	minIndex := registerTestJob(t, s, testJob("before"))

	// A snapshot, taken elsewhere, of a state further on that holds "after".
	other := testFSM(t)
	mustApply(t, other, minIndex+100, &logentry.JobRegister{Job: testJob("after")})
	snap, err := other.Snapshot()
	must.NoError(t, err)
	sink := &memorySink{}
	must.NoError(t, snap.Persist(sink))
	snap.Release()

	type result struct {
		job  *structs.Job
		meta QueryMeta
		err  error
	}
	done := make(chan result, 1)
	go func() {
		job, meta, err := s.GetJob(testCtx(t), "after", QueryOptions{Namespace: structs.DefaultNamespace, MinIndex: minIndex, MaxWait: time.Minute})
		done <- result{job, meta, err}
	}()
	must.NoError(t, s.FSM().Restore(io.NopCloser(bytes.NewReader(sink.Bytes()))))

	var r result
	select {
	case r = <-done:
	case <-time.After(leaderWait):
		t.Fatal("the read did not return after the restore")
	}
	must.NoError(t, r.err)
	must.NotNil(t, r.job)
	must.Eq(t, minIndex+100, r.meta.Index)
}

func TestGetJob_indexes(t *testing.T) {
	s := readServer(t)
	jobIndex := registerTestJob(t, s, testJob("web"))
	tableIndex := registerTestJob(t, s, testJob("other"))
	q := QueryOptions{Namespace: structs.DefaultNamespace}

	job, meta, err := s.GetJob(testCtx(t), "web", q)
	must.NoError(t, err)
	must.Eq(t, "web", job.ID)
	must.Eq(t, jobIndex, meta.Index, must.Sprint("a job is at its own index"))

	missing, meta, err := s.GetJob(testCtx(t), "missing", q)
	must.NoError(t, err)
	must.Nil(t, missing)
	must.Eq(t, tableIndex, meta.Index, must.Sprint("a missing job is at the table's index"))

	exists, meta, err := s.JobExists(testCtx(t), "web", q)
	must.NoError(t, err)
	must.True(t, exists)
	must.Eq(t, tableIndex, meta.Index)

	other, _, err := s.GetJob(testCtx(t), "web", QueryOptions{Namespace: "elsewhere"})
	must.NoError(t, err)
	must.Nil(t, other, must.Sprint("jobs are read in the query's namespace"))
}

// TestListJobs_indexCoversWhatTheSummariesCount: a job list carries
// summaries, so a write to the evaluations moves its index.
func TestListJobs_indexCoversWhatTheSummariesCount(t *testing.T) {
	s := readServer(t)
	registerTestJob(t, s, testJob("web"))
	evalIndex := applyLogEntry(t, s, &logentry.EvalUpdate{Evals: []*structs.Evaluation{testEval("web")}})

	entries, meta, err := s.ListJobs(testCtx(t), QueryOptions{Namespace: structs.DefaultNamespace, Prefix: "w", ACL: acl.Management()})
	must.NoError(t, err)
	must.SliceLen(t, 1, entries)
	must.Eq(t, "web", entries[0].Job.ID)
	must.NotNil(t, entries[0].Summary)
	must.Eq(t, evalIndex, meta.Index)

	summary, meta, err := s.GetJobSummary(testCtx(t), "web", QueryOptions{Namespace: structs.DefaultNamespace})
	must.NoError(t, err)
	must.Eq(t, "web", summary.JobID)
	must.Eq(t, evalIndex, meta.Index)

	none, _, err := s.ListJobs(testCtx(t), QueryOptions{Namespace: structs.DefaultNamespace, Prefix: "x"})
	must.NoError(t, err)
	must.SliceEmpty(t, none)
}

func TestJobAllocations_leavesOutAPurgedJobsAllocations(t *testing.T) {
	s := readServer(t)
	job := testJob("web")
	registerTestJob(t, s, job)
	stored, _, err := s.GetJob(testCtx(t), "web", QueryOptions{Namespace: structs.DefaultNamespace})
	must.NoError(t, err)
	current := placeTestAlloc(t, s, stored, "node-1")
	earlier := stored.Copy()
	earlier.CreateIndex = stored.CreateIndex - 1 // a job of the same ID, purged since
	left := placeTestAlloc(t, s, earlier, "node-1")
	q := QueryOptions{Namespace: structs.DefaultNamespace}

	allocs, meta, err := s.JobAllocations(testCtx(t), "web", false, q)
	must.NoError(t, err)
	must.Eq(t, []string{current.ID}, allocIDs(allocs))
	latest, err := s.State().LatestIndex()
	must.NoError(t, err)
	must.Eq(t, latest, meta.Index)

	allocs, _, err = s.JobAllocations(testCtx(t), "web", true, q)
	must.NoError(t, err)
	must.SliceContainsAll(t, []string{current.ID, left.ID}, allocIDs(allocs))
}

func allocIDs(allocs []*structs.Allocation) []string {
	ids := make([]string, len(allocs))
	for i, a := range allocs {
		ids[i] = a.ID
	}
	return ids
}

func TestGetEval_related(t *testing.T) {
	s := readServer(t)
	first, second, elsewhere := testEval("web"), testEval("web"), testEval("other")
	index := applyLogEntry(t, s, &logentry.EvalUpdate{Evals: []*structs.Evaluation{first, second, elsewhere}})

	info, meta, err := s.GetEval(testCtx(t), first.ID, true, QueryOptions{})
	must.NoError(t, err)
	must.Eq(t, first.ID, info.Eval.ID)
	must.SliceLen(t, 1, info.Related)
	must.Eq(t, second.ID, info.Related[0].ID)
	must.Eq(t, index, meta.Index)

	info, _, err = s.GetEval(testCtx(t), first.ID, false, QueryOptions{})
	must.NoError(t, err)
	must.Nil(t, info.Related)

	info, meta, err = s.GetEval(testCtx(t), "missing", true, QueryOptions{})
	must.NoError(t, err)
	must.Nil(t, info)
	must.Eq(t, index, meta.Index)
}

func TestNodeReads(t *testing.T) {
	s := readServer(t)
	node := testNode(structs.GenerateUUID())
	_, err := s.NodeRegister(testCtx(t), node)
	must.NoError(t, err)
	alloc := placeTestAlloc(t, s, testJob("web"), node.ID)

	nodes, _, err := s.ListNodes(testCtx(t), QueryOptions{Prefix: node.ID[:4]})
	must.NoError(t, err)
	must.SliceLen(t, 1, nodes)
	got, meta, err := s.GetNode(testCtx(t), node.ID, QueryOptions{})
	must.NoError(t, err)
	must.Eq(t, got.ModifyIndex, meta.Index)
	allocs, meta, err := s.NodeAllocations(testCtx(t), node.ID, QueryOptions{ACL: acl.Management()})
	must.NoError(t, err)
	must.Eq(t, []string{alloc.ID}, allocIDs(allocs))
	must.Eq(t, alloc.ModifyIndex, meta.Index)
}

func TestQueryWait(t *testing.T) {
	must.Eq(t, DefaultQueryWait, queryWait(0))
	must.Eq(t, DefaultQueryWait, queryWait(-time.Second))
	must.Eq(t, 5*time.Second, queryWait(5*time.Second))
	must.Eq(t, MaxQueryWait, queryWait(time.Hour))
	for range 100 {
		j := withJitter(time.Minute)
		must.GreaterEq(t, time.Minute, j)
		must.Less(t, time.Minute+time.Minute/16, j)
	}
}
