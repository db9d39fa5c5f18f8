package nomad

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/go-memdb"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/nomad/logentry"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/nomad/snapshot"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// saveSnapshot saves s's state and returns the archive and its metadata.
func saveSnapshot(t *testing.T, s *Server) ([]byte, *snapshot.Meta) {
	t.Helper()
	var buf bytes.Buffer
	meta, err := s.SnapshotSave(&buf)
	must.NoError(t, err)
	return buf.Bytes(), meta
}

// storedJobIDs lists the IDs of the jobs in s's state, sorted.
func storedJobIDs(t *testing.T, s *Server) []string {
	t.Helper()
	jobs, err := s.State().Jobs(nil)
	must.NoError(t, err)
	ids := make([]string, 0, len(jobs))
	for _, j := range jobs {
		ids = append(ids, j.ID)
	}
	return ids
}

// populatedServer is a server without workers holding two jobs, their
// pending evaluations, a node and an allocation.
func populatedServer(t *testing.T) (*Server, *structs.Allocation) {
	t.Helper()
	s := startServer(t, unscheduledConfig(t, "source"))
	waitForLeader(t, s)
	node := testNode("8d4c3e58-0000-4000-8000-000000000001")
	_, err := s.NodeRegister(testCtx(t), node)
	must.NoError(t, err)
	for _, id := range []string{"alpha", "beta"} {
		mustRegister(t, s, testJob(id))
	}
	job, err := s.State().JobByID(nil, structs.DefaultNamespace, "alpha")
	must.NoError(t, err)
	alloc := testAlloc(job, node.ID)
	_, err = s.Apply(testCtx(t), logentry.MsgAllocUpdate, &logentry.AllocUpdate{Allocs: []*structs.Allocation{alloc}})
	must.NoError(t, err)
	return s, alloc
}

func TestSnapshot_SaveAndRestoreIntoFreshServer(t *testing.T) {
	src, alloc := populatedServer(t)
	archive, meta := saveSnapshot(t, src)
	must.NotEq(t, "", meta.ID)
	must.Positive(t, meta.Index)
	must.Positive(t, meta.Term)
	must.Eq(t, snapshot.FormatVersion, meta.Format)
	checked, err := snapshot.Verify(bytes.NewReader(archive))
	must.NoError(t, err)
	must.Eq(t, meta.ID, checked.ID)
	must.Eq(t, meta.Size, checked.Size)

	dst := startServer(t, unscheduledConfig(t, "destination"))
	waitForLeader(t, dst)
	mustRegister(t, dst, testJob("only-on-destination"))

	restored, index, err := dst.SnapshotRestore(testCtx(t), bytes.NewReader(archive))
	must.NoError(t, err)
	must.Eq(t, meta.ID, restored.ID)
	must.Greater(t, meta.Index, index, must.Sprint("raft restores past the snapshot's index"))

	must.Eq(t, []string{"alpha", "beta"}, storedJobIDs(t, dst))
	st := dst.State()
	evals, err := st.Evals(nil)
	must.NoError(t, err)
	must.Len(t, 2, evals)
	got, err := st.AllocByID(nil, alloc.ID)
	must.NoError(t, err)
	must.NotNil(t, got)
	must.Eq(t, alloc.NodeID, got.NodeID)
	nodes, err := st.Nodes(nil)
	must.NoError(t, err)
	must.Len(t, 1, nodes)

	// The restored cluster takes writes after the restore's index.
	resp := mustRegister(t, dst, testJob("after-restore"))
	must.Greater(t, index, resp.JobModifyIndex)
}

// TestSnapshotRestore_RefusesBadArchives holds that an archive that is
// cut short, altered, or whose state does not load changes nothing: the
// same state store stays in place, with the same jobs.
func TestSnapshotRestore_RefusesBadArchives(t *testing.T) {
	src, _ := populatedServer(t)
	archive, meta := saveSnapshot(t, src)

	dst := startServer(t, unscheduledConfig(t, "destination"))
	waitForLeader(t, dst)
	mustRegister(t, dst, testJob("keep"))
	before := dst.State()

	flipped := bytes.Clone(archive)
	flipped[len(flipped)/2] ^= 0xff
	var garbage bytes.Buffer
	bad := []byte("{\"Type\":\"header\",\"Value\":{\"Version\":1}}\n{\"Type\":\"job\",\"Value\":[]}\n")
	badMeta := *meta
	badMeta.Size = int64(len(bad))
	must.NoError(t, snapshot.Write(&garbage, badMeta, bytes.NewReader(bad)))
	var badVersion bytes.Buffer
	vMeta := badMeta
	vMeta.Version = 99
	must.NoError(t, snapshot.Write(&badVersion, vMeta, bytes.NewReader(bad)))

	tests := []struct {
		name string
		body []byte
		want string
	}{
		{"empty", nil, "the archive is empty"},
		{"truncated", archive[:len(archive)-20], "truncated"},
		{"corrupted", flipped, "read snapshot archive"},
		{"not an archive", []byte(`{"Job":{}}`), "not a gzip'd snapshot archive"},
		{"state does not load", garbage.Bytes(), "the state in the archive does not load"},
		{"unknown raft version", badVersion.Bytes(), "raft snapshot version 99"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := dst.SnapshotRestore(testCtx(t), bytes.NewReader(tc.body))
			must.ErrorContains(t, err, tc.want)
			must.ErrorIs(t, err, ErrInvalidRequest)
			must.True(t, dst.State() == before, must.Sprint("the state store was replaced"))
			must.Eq(t, []string{"keep"}, storedJobIDs(t, dst))
		})
	}
}

// TestSnapshot_Cluster saves on a follower and restores on the leader of
// a three-server cluster with data dirs: a follower refuses the restore,
// naming the leader; after the leader's, every server holds the saved jobs
// and none the job written after the save.
func TestSnapshot_Cluster(t *testing.T) {
	c := startCluster(t)
	leader := c.waitForOneLeader(c.servers)
	mustRegister(t, leader, testJob("saved"))
	c.waitForJob(c.servers, "saved")

	f := follower(c.servers)
	archive, meta := saveSnapshot(t, f)
	must.Positive(t, meta.Index)

	mustRegister(t, leader, testJob("after-save"))
	c.waitForJob(c.servers, "after-save")

	_, _, err := f.SnapshotRestore(testCtx(t), bytes.NewReader(archive))
	must.ErrorIs(t, err, nomadrpc.ErrNotLeader)
	must.ErrorContains(t, err, "this server is not the leader; send the snapshot to the leader")
	must.ErrorContains(t, err, leader.config.HTTPAddr)
	must.Eq(t, []string{"after-save", "saved"}, storedJobIDs(t, f))

	_, _, err = leader.SnapshotRestore(testCtx(t), bytes.NewReader(archive))
	must.NoError(t, err)
	for _, s := range c.servers {
		waitfor.True(t, "restored jobs on "+s.config.NodeName, func() bool {
			return strings.Join(storedJobIDs(t, s), ",") == "saved"
		})
	}
}

// TestSnapshotRestore_WakesBlockingQueries holds that a blocking query
// waiting on the replaced store answers from the restored one.
func TestSnapshotRestore_WakesBlockingQueries(t *testing.T) {
	src, _ := populatedServer(t)
	archive, _ := saveSnapshot(t, src)

	dst := startServer(t, unscheduledConfig(t, "destination"))
	waitForLeader(t, dst)
	mustRegister(t, dst, testJob("replaced"))
	index, err := dst.State().Index(state.TableJobs)
	must.NoError(t, err)

	type result struct {
		ids []string
		err error
	}
	done := make(chan result, 1)
	go func() {
		resp, _, err := dst.blockingRead(testCtx(t), index, func(ws memdb.WatchSet, st *state.StateStore) (any, uint64, error) {
			jobs, err := st.Jobs(ws)
			if err != nil {
				return nil, 0, err
			}
			var ids []string
			for _, j := range jobs {
				ids = append(ids, j.ID)
			}
			idx, err := st.Index(state.TableJobs)
			return ids, idx, err
		})
		ids, _ := resp.([]string)
		done <- result{ids, err}
	}()

	_, _, err = dst.SnapshotRestore(testCtx(t), bytes.NewReader(archive))
	must.NoError(t, err)
	select {
	case r := <-done:
		must.NoError(t, r.err)
		must.Eq(t, []string{"alpha", "beta"}, r.ids)
	case <-testCtx(t).Done():
		t.Fatal("the blocking query did not answer after the restore")
	}
}

// TestSnapshotRestore_ReseedsLeader holds that the leader schedules the
// pending evaluations of the restored state and tracks its periodic jobs,
// and no longer those of the replaced state.
func TestSnapshotRestore_ReseedsLeader(t *testing.T) {
	src, _ := populatedServer(t)
	mustRegister(t, src, testPeriodicJob("nightly"))
	archive, _ := saveSnapshot(t, src)
	evals, err := src.State().Evals(nil)
	must.NoError(t, err)
	var pending []string
	for _, e := range evals {
		if e.Status == structs.EvalStatusPending {
			pending = append(pending, e.ID)
		}
	}
	must.SliceNotEmpty(t, pending)

	dst := startServer(t, testConfig(t, "destination"))
	waitForLeader(t, dst)
	mustRegister(t, dst, testPeriodicJob("replaced-periodic"))
	waitfor.True(t, "the periodic job to be tracked", func() bool {
		return periodicTracked(dst, "replaced-periodic")
	})

	_, _, err = dst.SnapshotRestore(testCtx(t), bytes.NewReader(archive))
	must.NoError(t, err)
	must.True(t, periodicTracked(dst, "nightly"))
	must.False(t, periodicTracked(dst, "replaced-periodic"))
	for _, id := range pending {
		waitfor.True(t, "restored evaluation "+id+" to be processed", func() bool {
			e, err := dst.State().EvalByID(nil, id)
			return err == nil && e != nil && e.Status != structs.EvalStatusPending
		})
	}
}

func periodicTracked(s *Server, id string) bool {
	return s.periodic.Tracks(structs.DefaultNamespace, id)
}

func TestSnapshotRestore_CanceledContext(t *testing.T) {
	src, _ := populatedServer(t)
	archive, _ := saveSnapshot(t, src)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	before := src.State()
	_, _, err := src.SnapshotRestore(ctx, bytes.NewReader(archive))
	must.True(t, errors.Is(err, context.Canceled), must.Sprint(err))
	must.True(t, src.State() == before)
}

// What the leader's broker held of the replaced state goes with it: an
// evaluation of a job the snapshot does not have is not scheduled.
func TestSnapshotRestore_DropsReplacedEvaluations(t *testing.T) {
	s := startServer(t, unscheduledConfig(t, "unscheduled"))
	waitForLeader(t, s)
	// Raft takes no snapshot of a log without an entry past the
	// bootstrap: wait for the leader's first write, its root key.
	waitForRootKey(t, s)
	archive, _ := saveSnapshot(t, s) // no job in it
	mustRegister(t, s, testJob("gone"))
	must.Eq(t, 1, s.EvalBrokerStats().TotalReady)

	_, _, err := s.SnapshotRestore(testCtx(t), bytes.NewReader(archive))
	must.NoError(t, err)
	must.True(t, s.IsLeader())
	stats := s.EvalBrokerStats()
	must.Eq(t, 0, stats.TotalReady+stats.TotalUnacked+stats.TotalPending+stats.TotalWaiting,
		must.Sprintf("the broker still holds evaluations of the replaced state: %+v", stats))
	must.SliceEmpty(t, storedJobIDs(t, s))
}
