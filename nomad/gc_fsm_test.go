package nomad

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

// TestFSM_GCDeleteChecksAgainAndPublishes: a GCDelete entry removes a
// dead job with its versions, a terminal evaluation and a finished
// allocation, publishing JobBatchDeregistered for the job (evaluations
// and allocations, as in Nomad, publish nothing); what changed since the
// decision stays: a job registered again, a running allocation, a
// pending evaluation.
func TestFSM_GCDeleteChecksAgainAndPublishes(t *testing.T) {
	fsm, _, sub := eventFSM(t)
	st := fsm.State()
	dead := testJob("dead")
	again := testJob("again")
	mustApply(t, fsm, 5, &logentry.JobRegister{Job: dead})
	mustApply(t, fsm, 6, &logentry.JobRegister{Job: again})
	nextBatch(t, sub)
	nextBatch(t, sub)
	doneEval, liveEval := testEval("dead"), testEval("again")
	doneEval.Status = structs.EvalStatusComplete
	mustApply(t, fsm, 7, &logentry.EvalUpdate{Evals: []*structs.Evaluation{doneEval, liveEval}})
	nextBatch(t, sub)
	done, running := testAlloc(dead, "node-1"), testAlloc(again, "node-1")
	done.ClientStatus = structs.AllocClientStatusComplete
	running.ClientStatus = structs.AllocClientStatusRunning
	mustApply(t, fsm, 8, &logentry.AllocUpdate{Allocs: []*structs.Allocation{done, running}})
	nextBatch(t, sub)

	deadNow, err := st.JobByID(nil, dead.Namespace, dead.ID)
	must.NoError(t, err)
	// "again" is seen at index 6 but registered again at 9.
	mustApply(t, fsm, 9, &logentry.JobRegister{Job: testJob("again")})
	nextBatch(t, sub)

	g := &state.Garbage{
		Jobs: []state.GarbageJob{
			{Namespace: dead.Namespace, ID: dead.ID, ModifyIndex: deadNow.ModifyIndex},
			{Namespace: again.Namespace, ID: again.ID, ModifyIndex: 6},
		},
		Evals:  []string{doneEval.ID, liveEval.ID},
		Allocs: []string{done.ID, running.ID},
	}
	mustApply(t, fsm, 10, &logentry.GCDelete{Garbage: g})
	index, lines := nextBatch(t, sub)
	must.Eq(t, 10, index)
	must.Eq(t, []string{"Job JobBatchDeregistered dead deleted"}, lines)

	j, err := st.JobByID(nil, dead.Namespace, dead.ID)
	must.NoError(t, err)
	must.Nil(t, j)
	versions, err := st.JobVersionsByID(nil, dead.Namespace, dead.ID)
	must.NoError(t, err)
	must.Len(t, 0, versions)
	j, err = st.JobByID(nil, again.Namespace, again.ID)
	must.NoError(t, err)
	must.NotNil(t, j)
	e, err := st.EvalByID(nil, doneEval.ID)
	must.NoError(t, err)
	must.Nil(t, e)
	e, err = st.EvalByID(nil, liveEval.ID)
	must.NoError(t, err)
	must.NotNil(t, e)
	a, err := st.AllocByID(nil, done.ID)
	must.NoError(t, err)
	must.Nil(t, a)
	a, err = st.AllocByID(nil, running.ID)
	must.NoError(t, err)
	must.NotNil(t, a)
}

// TestGCDelete_validate refuses an empty entry and one too large.
func TestGCDelete_validate(t *testing.T) {
	must.Error(t, (&logentry.GCDelete{}).Validate())
	must.Error(t, (&logentry.GCDelete{Garbage: &state.Garbage{}}).Validate())
	big := &state.Garbage{Evals: make([]string, logentry.MaxGCBatch+1)}
	must.Error(t, (&logentry.GCDelete{Garbage: big}).Validate())
	must.NoError(t, (&logentry.GCDelete{Garbage: &state.Garbage{Evals: []string{"x"}}}).Validate())
}

// TestSplitGarbage keeps each part within the bound and loses nothing.
func TestSplitGarbage(t *testing.T) {
	g := &state.Garbage{}
	for i := range 5 {
		g.Jobs = append(g.Jobs, state.GarbageJob{Namespace: "default", ID: string(rune('a' + i))})
		g.Evals = append(g.Evals, string(rune('A'+i)))
	}
	parts := splitGarbage(g, 3)
	must.Len(t, 4, parts)
	total := 0
	for _, p := range parts {
		must.LessEq(t, 3, p.Count())
		total += p.Count()
	}
	must.Eq(t, 10, total)
	must.Len(t, 0, splitGarbage(&state.Garbage{}, 3))
}
