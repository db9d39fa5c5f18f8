package nomad

import (
	"fmt"
	"slices"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/nomad/logentry"
)

// TestRead_followerShowsItsOwnWrites holds read-your-writes on a
// follower: a read that is not stale, sent to the follower right after a
// write it forwarded, sees the write.
func TestRead_followerShowsItsOwnWrites(t *testing.T) {
	c := startCluster(t)
	c.waitForOneLeader(c.servers)
	f := follower(c.servers)
	for i := range 20 {
		resp := mustRegister(t, f, testJob(fmt.Sprintf("ryw-%d", i)))
		info, meta, err := f.GetEval(testCtx(t), resp.EvalID, false, QueryOptions{Namespace: "default"})
		must.NoError(t, err)
		must.NotNil(t, info, must.Sprintf("write %d: evaluation %s not found on the follower", i, resp.EvalID))
		must.GreaterEq(t, resp.EvalCreateIndex, meta.Index)
	}
}

// TestRead_restartedFollowerSaysWhenItIsBehind holds that a follower that
// restarts behind its cluster never passes off what it holds as the
// cluster's state: a stale read that misses writes reports no known
// leader, and a read that is not stale fails or sees every write.
func TestRead_restartedFollowerSaysWhenItIsBehind(t *testing.T) {
	c := startCluster(t)
	leader := c.waitForOneLeader(c.servers)
	down := slices.IndexFunc(c.servers, func(s *Server) bool { return s != leader })
	must.NoError(t, c.servers[down].Shutdown())

	const jobs = 50
	for i := range jobs {
		mustRegister(t, leader, testJob(fmt.Sprintf("while-down-%02d", i)))
	}

	restarted := c.restart(down)
	staleAnswers, behind := 0, 0
	waitfor.True(t, "the restarted follower to catch up", func() bool {
		list, meta, err := restarted.ListJobs(testCtx(t), QueryOptions{Namespace: "default", AllowStale: true, ACL: acl.Management()})
		must.NoError(t, err)
		staleAnswers++
		if len(list) < jobs {
			behind++
			must.False(t, meta.KnownLeader, must.Sprintf("a stale list of %d of %d jobs claims a known leader", len(list), jobs))
			return false
		}
		return meta.KnownLeader
	})
	t.Logf("%d stale answers, %d of them behind", staleAnswers, behind)

	// Once a leader is known, a read that is not stale sees every write.
	c.waitForOneLeader(c.servers)
	mustRegister(t, leader, testJob("after-restart"))
	list, meta, err := restarted.ListJobs(testCtx(t), QueryOptions{Namespace: "default", ACL: acl.Management()})
	must.NoError(t, err)
	must.Len(t, jobs+1, list)
	must.True(t, meta.KnownLeader)
}

// TestFSM_recordsEveryEntryAsApplied: the applied index moves past every
// entry, also one that wrote nothing or failed, so that a follower
// catching up with the leader's applied index can always reach it.
func TestFSM_recordsEveryEntryAsApplied(t *testing.T) {
	fsm := testFSM(t)
	mustApply(t, fsm, 3, &logentry.JobRegister{Job: testJob("web"), Eval: testEval("web")})
	applied, err := fsm.State().AppliedIndex(nil)
	must.NoError(t, err)
	must.Eq(t, 3, applied)

	resp := applyEntry(t, fsm, 4, &logentry.JobDeregister{Namespace: "default", JobID: "missing"})
	must.NotNil(t, resp, must.Sprint("deregistering a missing job fails"))
	applied, err = fsm.State().AppliedIndex(nil)
	must.NoError(t, err)
	must.Eq(t, 4, applied)
	latest, err := fsm.State().LatestIndex()
	must.NoError(t, err)
	must.Eq(t, 3, latest)
}
