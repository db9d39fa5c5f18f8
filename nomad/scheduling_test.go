package nomad

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

func TestScheduling_DesignExamplePlaced(t *testing.T) {
	s := startServer(t, testConfig(t, "dev"))
	waitForLeader(t, s)
	nodes := registerNodes(t, s, 3)

	before := time.Now().UnixNano()
	resp := mustRegister(t, s, designJob())
	waitfor.True(t, "the evaluation to complete", func() bool {
		return evalStatus(t, s, resp.EvalID) == structs.EvalStatusComplete
	})
	allocs := liveAllocs(t, s, "maxrun")
	must.Len(t, 1, allocs)
	a := allocs[0]
	must.Eq(t, "maxrun.maxrun[0]", a.Name)
	must.Eq(t, resp.EvalID, a.EvalID)
	must.GreaterEq(t, before, a.CreateTime)
	must.Eq(t, a.CreateTime, a.ModifyTime)
	must.NotNil(t, a.Job)
	must.SliceContainsFunc(t, nodes, a.NodeID, func(n *structs.Node, id string) bool { return n.ID == id })
	waitfor.True(t, "the job to run", func() bool { return jobStatus(t, s, "maxrun") == structs.JobStatusRunning })
}

func TestScheduling_BlockedUntilANodeJoins(t *testing.T) {
	s := startServer(t, testConfig(t, "dev"))
	waitForLeader(t, s)
	registerNodes(t, s, 1) // room for 6 default allocations (memory)

	job := testJob("wide")
	job.TaskGroups[0].Count = 10
	resp := mustRegister(t, s, job)
	waitfor.True(t, "the evaluation", func() bool { return evalStatus(t, s, resp.EvalID) == structs.EvalStatusComplete })
	eval, err := s.State().EvalByID(nil, resp.EvalID)
	must.NoError(t, err)
	must.MapContainsKey(t, eval.FailedTGAllocs, "group")
	must.Eq(t, 4, eval.QueuedAllocations["group"])
	must.NotEq(t, "", eval.BlockedEval)
	must.Eq(t, structs.EvalStatusBlocked, evalStatus(t, s, eval.BlockedEval))
	must.Len(t, 6, liveAllocs(t, s, "wide"))
	summary, err := s.State().JobSummaryByID(nil, structs.DefaultNamespace, "wide")
	must.NoError(t, err)
	must.Eq(t, structs.TaskGroupSummary{Queued: 4, Starting: 6}, summary.Summary["group"])
	waitfor.True(t, "blocked evaluation tracked", func() bool { return s.blockedEvals.Stats().TotalBlocked == 1 })

	registerNodes(t, s, 1)
	waitfor.True(t, "every allocation placed", func() bool { return len(liveAllocs(t, s, "wide")) == 10 })
	waitfor.True(t, "the blocked evaluation to complete", func() bool {
		return evalStatus(t, s, eval.BlockedEval) == structs.EvalStatusComplete
	})
	names := make(map[string]bool)
	for _, a := range liveAllocs(t, s, "wide") {
		names[a.Name] = true
		must.Positive(t, a.CreateTime)
	}
	must.MapLen(t, 10, names, must.Sprint("every index once"))
	must.MapContainsKey(t, names, "wide.group[9]")
}
