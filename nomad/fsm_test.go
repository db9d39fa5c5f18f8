package nomad

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/structs"
)

func testFSM(t *testing.T) *FSM {
	t.Helper()
	fsm, err := NewFSM(testLogger(t, "fsm"))
	must.NoError(t, err)
	return fsm
}

// applyEntry applies an entry at index and returns what Apply returned.
func applyEntry(t *testing.T, fsm *FSM, index uint64, entry logentry.Entry) any {
	t.Helper()
	data, err := logentry.Encode(entry.MessageType(), entry)
	must.NoError(t, err)
	return fsm.Apply(&raft.Log{Index: index, Term: 1, Type: raft.LogCommand, Data: data})
}

// mustApply applies an entry that must succeed.
func mustApply(t *testing.T, fsm *FSM, index uint64, entry logentry.Entry) {
	t.Helper()
	if resp := applyEntry(t, fsm, index, entry); resp != nil {
		t.Fatalf("apply %s at %d: %v", entry.MessageType(), index, resp)
	}
}

func TestFSM_JobRegister(t *testing.T) {
	fsm := testFSM(t)
	var hooked []*structs.Evaluation
	fsm.Listen(Listener{Apply: func(a Applied) { hooked = append(hooked, pendingEvals(a)...) }})

	job, eval := testJob("example"), testEval("example")
	mustApply(t, fsm, 10, &logentry.JobRegister{Job: job, Eval: eval})

	got, err := fsm.State().JobByID(nil, structs.DefaultNamespace, "example")
	must.NoError(t, err)
	must.NotNil(t, got)
	must.Eq(t, 10, got.CreateIndex)
	must.Eq(t, 10, got.JobModifyIndex)
	must.Eq(t, structs.JobStatusPending, got.Status)

	gotEval, err := fsm.State().EvalByID(nil, eval.ID)
	must.NoError(t, err)
	must.NotNil(t, gotEval)
	must.Eq(t, 10, gotEval.JobModifyIndex)
	must.Eq(t, 10, gotEval.CreateIndex)

	must.Len(t, 1, hooked)
	must.Eq(t, eval.ID, hooked[0].ID)
}

func TestFSM_JobRegister_EnforceIndex(t *testing.T) {
	fsm := testFSM(t)
	mustApply(t, fsm, 5, &logentry.JobRegister{Job: testJob("example")})

	changed := testJob("example")
	changed.Meta = map[string]string{"v": "2"}
	resp := applyEntry(t, fsm, 6, &logentry.JobRegister{Job: changed, EnforceIndex: true, JobModifyIndex: 4})
	err, ok := resp.(error)
	must.True(t, ok)
	must.ErrorIs(t, err, ErrIndexConflict)
	must.StrContains(t, err.Error(), "conflicting job modify index: 5")

	got, err := fsm.State().JobByID(nil, structs.DefaultNamespace, "example")
	must.NoError(t, err)
	must.Eq(t, 5, got.JobModifyIndex, must.Sprint("a refused register must not write"))

	mustApply(t, fsm, 7, &logentry.JobRegister{Job: changed, EnforceIndex: true, JobModifyIndex: 5})
	got, err = fsm.State().JobByID(nil, structs.DefaultNamespace, "example")
	must.NoError(t, err)
	must.Eq(t, 7, got.JobModifyIndex)
}

func TestFSM_JobDeregister(t *testing.T) {
	cases := []struct {
		name  string
		purge bool
	}{
		{"stop", false},
		{"purge", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fsm := testFSM(t)
			mustApply(t, fsm, 1, &logentry.JobRegister{Job: testJob("example")})
			eval := testEval("example")
			eval.TriggeredBy = structs.EvalTriggerJobDeregister
			mustApply(t, fsm, 2, &logentry.JobDeregister{
				Namespace: structs.DefaultNamespace, JobID: "example", Purge: tc.purge, Eval: eval,
			})

			got, err := fsm.State().JobByID(nil, structs.DefaultNamespace, "example")
			must.NoError(t, err)
			if tc.purge {
				must.Nil(t, got)
			} else {
				must.NotNil(t, got)
				must.True(t, got.Stop)
			}
			gotEval, err := fsm.State().EvalByID(nil, eval.ID)
			must.NoError(t, err)
			must.NotNil(t, gotEval)
		})
	}
}

func TestFSM_JobDeregister_NotFound(t *testing.T) {
	fsm := testFSM(t)
	resp := applyEntry(t, fsm, 1, &logentry.JobDeregister{Namespace: structs.DefaultNamespace, JobID: "missing"})
	err, ok := resp.(error)
	must.True(t, ok)
	must.ErrorIs(t, err, ErrNotFound)
}

func TestFSM_JobStatusUpdate(t *testing.T) {
	fsm := testFSM(t)
	mustApply(t, fsm, 1, &logentry.JobRegister{Job: testJob("example")})
	mustApply(t, fsm, 2, &logentry.JobStatusUpdate{
		Namespace: structs.DefaultNamespace, JobID: "example", Status: structs.JobStatusDead, Description: "done",
	})
	got, err := fsm.State().JobByID(nil, structs.DefaultNamespace, "example")
	must.NoError(t, err)
	must.Eq(t, structs.JobStatusDead, got.Status)
	must.Eq(t, "done", got.StatusDescription)
}

func TestFSM_EvalUpdateAndDelete(t *testing.T) {
	fsm := testFSM(t)
	var hooked int
	fsm.Listen(Listener{Apply: func(a Applied) { hooked += len(pendingEvals(a)) }})

	pending, complete := testEval("a"), testEval("b")
	complete.Status = structs.EvalStatusComplete
	mustApply(t, fsm, 3, &logentry.EvalUpdate{Evals: []*structs.Evaluation{pending, complete}})
	for _, id := range []string{pending.ID, complete.ID} {
		got, err := fsm.State().EvalByID(nil, id)
		must.NoError(t, err)
		must.NotNil(t, got)
	}
	must.Eq(t, 1, hooked, must.Sprint("one pending evaluation was written"))

	mustApply(t, fsm, 4, &logentry.EvalDelete{Evals: []string{pending.ID}})
	got, err := fsm.State().EvalByID(nil, pending.ID)
	must.NoError(t, err)
	must.Nil(t, got)
	idx, err := fsm.State().Index(state.TableEvals)
	must.NoError(t, err)
	must.Eq(t, 4, idx)
}

func TestFSM_Allocs(t *testing.T) {
	fsm := testFSM(t)
	job := testJob("example")
	mustApply(t, fsm, 1, &logentry.JobRegister{Job: job})
	alloc := testAlloc(job, "node-1")
	alloc.ClientStatus = structs.AllocClientStatusPending
	eval := testEval("example")
	mustApply(t, fsm, 2, &logentry.AllocUpdate{Allocs: []*structs.Allocation{alloc}, Evals: []*structs.Evaluation{eval}})

	got, err := fsm.State().AllocByID(nil, alloc.ID)
	must.NoError(t, err)
	must.NotNil(t, got)
	must.Eq(t, 2, got.CreateIndex)
	gotEval, err := fsm.State().EvalByID(nil, eval.ID)
	must.NoError(t, err)
	must.NotNil(t, gotEval)

	// The client reports it running.
	mustApply(t, fsm, 3, &logentry.AllocClientUpdate{Allocs: []*structs.Allocation{{
		ID: alloc.ID, ClientStatus: structs.AllocClientStatusRunning, ClientDescription: "tasks are running",
	}}})
	got, err = fsm.State().AllocByID(nil, alloc.ID)
	must.NoError(t, err)
	must.Eq(t, structs.AllocClientStatusRunning, got.ClientStatus)
	must.Eq(t, "tasks are running", got.ClientDescription)

	// The server stops it.
	stopEval := testEval("example")
	mustApply(t, fsm, 4, &logentry.AllocDesiredStatus{
		AllocIDs: []string{alloc.ID}, Desired: structs.AllocDesiredStatusStop, Desc: "stopped",
		Evals: []*structs.Evaluation{stopEval},
	})
	got, err = fsm.State().AllocByID(nil, alloc.ID)
	must.NoError(t, err)
	must.Eq(t, structs.AllocDesiredStatusStop, got.DesiredStatus)
	must.Eq(t, "stopped", got.DesiredDescription)
	gotEval, err = fsm.State().EvalByID(nil, stopEval.ID)
	must.NoError(t, err)
	must.NotNil(t, gotEval)

	// Garbage collection removes it.
	mustApply(t, fsm, 5, &logentry.EvalDelete{Allocs: []string{alloc.ID}})
	got, err = fsm.State().AllocByID(nil, alloc.ID)
	must.NoError(t, err)
	must.Nil(t, got)
}

func TestFSM_Nodes(t *testing.T) {
	fsm := testFSM(t)
	node := testNode(structs.GenerateUUID())
	node.Status = structs.NodeStatusInit
	mustApply(t, fsm, 1, &logentry.NodeRegister{Node: node})
	got, err := fsm.State().NodeByID(nil, node.ID)
	must.NoError(t, err)
	must.NotNil(t, got)
	must.Eq(t, structs.NodeStatusInit, got.Status)

	mustApply(t, fsm, 2, &logentry.NodeUpdateStatus{NodeID: node.ID, Status: structs.NodeStatusReady, UpdatedAt: 42})
	got, err = fsm.State().NodeByID(nil, node.ID)
	must.NoError(t, err)
	must.Eq(t, structs.NodeStatusReady, got.Status)
	must.Eq(t, 42, got.StatusUpdatedAt)

	mustApply(t, fsm, 3, &logentry.NodeUpdateEligibility{NodeID: node.ID, Eligibility: structs.NodeSchedulingIneligible, UpdatedAt: 43})
	got, err = fsm.State().NodeByID(nil, node.ID)
	must.NoError(t, err)
	must.Eq(t, structs.NodeSchedulingIneligible, got.SchedulingEligibility)

	drain := &structs.DrainStrategy{Deadline: time.Minute}
	mustApply(t, fsm, 4, &logentry.NodeUpdateDrain{NodeID: node.ID, DrainStrategy: drain, UpdatedAt: 44})
	got, err = fsm.State().NodeByID(nil, node.ID)
	must.NoError(t, err)
	must.True(t, got.Drain)
	must.NotNil(t, got.DrainStrategy)
	must.Eq(t, time.Minute, got.DrainStrategy.Deadline)

	mustApply(t, fsm, 5, &logentry.NodeUpdateDrain{NodeID: node.ID, MarkEligible: true, UpdatedAt: 45})
	got, err = fsm.State().NodeByID(nil, node.ID)
	must.NoError(t, err)
	must.False(t, got.Drain)
	must.Eq(t, structs.NodeSchedulingEligible, got.SchedulingEligibility)

	mustApply(t, fsm, 6, &logentry.NodeDeregister{NodeIDs: []string{node.ID}})
	got, err = fsm.State().NodeByID(nil, node.ID)
	must.NoError(t, err)
	must.Nil(t, got)
}

func TestFSM_NodeUpdateStatus_UnknownNode(t *testing.T) {
	fsm := testFSM(t)
	resp := applyEntry(t, fsm, 1, &logentry.NodeUpdateStatus{NodeID: "missing", Status: structs.NodeStatusDown})
	err, ok := resp.(error)
	must.True(t, ok)
	must.ErrorIs(t, err, ErrNotFound)
}

func TestFSM_PeriodicLaunch(t *testing.T) {
	fsm := testFSM(t)
	launch := time.Unix(1700000000, 0).UTC()
	mustApply(t, fsm, 7, &logentry.PeriodicLaunch{Launch: &state.PeriodicLaunch{
		ID: "cron", Namespace: structs.DefaultNamespace, Launch: launch,
	}})
	got, err := fsm.State().PeriodicLaunchByID(nil, structs.DefaultNamespace, "cron")
	must.NoError(t, err)
	must.NotNil(t, got)
	must.True(t, got.Launch.Equal(launch))
	must.Eq(t, 7, got.ModifyIndex)
}

func TestFSM_UnknownOrMalformedEntry(t *testing.T) {
	cases := []struct {
		name string
		data []byte
	}{
		{"unknown type", []byte{0xEE, '{', '}'}},
		{"type zero", []byte{0}},
		{"empty", nil},
		{"bad body", append([]byte{byte(logentry.MsgJobRegister)}, []byte("{not json")...)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fsm := testFSM(t)
			resp := fsm.Apply(&raft.Log{Index: 1, Type: raft.LogCommand, Data: tc.data})
			err, ok := resp.(error)
			must.True(t, ok, must.Sprintf("Apply returned %#v", resp))
			must.Error(t, err)
			idx, err := fsm.State().LatestIndex()
			must.NoError(t, err)
			must.Eq(t, 0, idx)
		})
	}
}

func TestFSM_EncodeRejectsMismatchedType(t *testing.T) {
	_, err := logentry.Encode(logentry.MsgNodeRegister, &logentry.EvalUpdate{})
	must.Error(t, err)
}

// memorySink is a raft.SnapshotSink over a buffer.
type memorySink struct {
	bytes.Buffer
	cancelled bool
}

func (s *memorySink) ID() string    { return "test" }
func (s *memorySink) Cancel() error { s.cancelled = true; return nil }
func (s *memorySink) Close() error  { return nil }

func TestFSM_SnapshotRestore(t *testing.T) {
	fsm := testFSM(t)
	job := testJob("example")
	eval := testEval("example")
	node := testNode(structs.GenerateUUID())
	mustApply(t, fsm, 1, &logentry.JobRegister{Job: job, Eval: eval})
	mustApply(t, fsm, 2, &logentry.NodeRegister{Node: node})
	alloc := testAlloc(testJob("example"), node.ID)
	mustApply(t, fsm, 3, &logentry.AllocUpdate{Allocs: []*structs.Allocation{alloc}})
	mustApply(t, fsm, 4, &logentry.PeriodicLaunch{Launch: &state.PeriodicLaunch{
		ID: "example", Namespace: structs.DefaultNamespace, Launch: time.Unix(1700000000, 0).UTC(),
	}})

	snap, err := fsm.Snapshot()
	must.NoError(t, err)
	sink := &memorySink{}
	must.NoError(t, snap.Persist(sink))
	snap.Release()
	must.False(t, sink.cancelled)

	// Writes after the snapshot are not in it.
	mustApply(t, fsm, 5, &logentry.EvalUpdate{Evals: []*structs.Evaluation{testEval("later")}})

	restored := testFSM(t)
	old := restored.State()
	must.NoError(t, restored.Restore(io.NopCloser(bytes.NewReader(sink.Bytes()))))
	select {
	case <-old.AbandonCh():
	default:
		t.Fatal("restore must abandon the replaced store")
	}

	src, dst := fsm.State(), restored.State()
	gotJob, err := dst.JobByID(nil, structs.DefaultNamespace, "example")
	must.NoError(t, err)
	wantJob, err := src.JobByID(nil, structs.DefaultNamespace, "example")
	must.NoError(t, err)
	must.Eq(t, wantJob, gotJob)

	gotEval, err := dst.EvalByID(nil, eval.ID)
	must.NoError(t, err)
	wantEval, err := src.EvalByID(nil, eval.ID)
	must.NoError(t, err)
	must.Eq(t, wantEval, gotEval)

	gotNode, err := dst.NodeByID(nil, node.ID)
	must.NoError(t, err)
	wantNode, err := src.NodeByID(nil, node.ID)
	must.NoError(t, err)
	must.Eq(t, wantNode, gotNode)

	gotAlloc, err := dst.AllocByID(nil, alloc.ID)
	must.NoError(t, err)
	wantAlloc, err := src.AllocByID(nil, alloc.ID)
	must.NoError(t, err)
	must.Eq(t, wantAlloc, gotAlloc)

	gotLaunch, err := dst.PeriodicLaunchByID(nil, structs.DefaultNamespace, "example")
	must.NoError(t, err)
	must.NotNil(t, gotLaunch)

	evals, err := dst.Evals(nil)
	must.NoError(t, err)
	must.Len(t, 1, evals, must.Sprint("the eval written after the snapshot must not be restored"))
	idx, err := dst.LatestIndex()
	must.NoError(t, err)
	must.Eq(t, 4, idx)
}

func TestFSM_RestoreRejectsGarbage(t *testing.T) {
	fsm := testFSM(t)
	before := fsm.State()
	err := fsm.Restore(io.NopCloser(bytes.NewReader([]byte("garbage"))))
	must.Error(t, err)
	must.True(t, before == fsm.State(), must.Sprint("a failed restore keeps the store"))
}

func TestFSM_SnapshotPersistFailureCancelsSink(t *testing.T) {
	fsm := testFSM(t)
	mustApply(t, fsm, 1, &logentry.JobRegister{Job: testJob("example")})
	snap, err := fsm.Snapshot()
	must.NoError(t, err)
	sink := &failingSink{}
	must.Error(t, snap.Persist(sink))
	must.True(t, sink.cancelled)
}

type failingSink struct{ cancelled bool }

func (s *failingSink) Write([]byte) (int, error) { return 0, errors.New("disk full") }
func (s *failingSink) ID() string                { return "failing" }
func (s *failingSink) Cancel() error             { s.cancelled = true; return nil }
func (s *failingSink) Close() error              { return nil }

// pendingEvals are the pending evaluations an applied entry wrote.
func pendingEvals(a Applied) []*structs.Evaluation {
	var pending []*structs.Evaluation
	for _, e := range a.Entry.WrittenEvals() {
		if e.Status == structs.EvalStatusPending {
			pending = append(pending, e)
		}
	}
	return pending
}

// TestFSM_ListenersHearAFailedEntry: a listener is told of an entry that
// failed, with its error, so that it can tell it from one that applied;
// the rows are recorded only for a listener that asks for them.
func TestFSM_ListenersHearAFailedEntry(t *testing.T) {
	fsm := testFSM(t)
	var heard []Applied
	fsm.Listen(Listener{Apply: func(a Applied) { heard = append(heard, a) }})

	resp := applyEntry(t, fsm, 1, &logentry.NodeUpdateStatus{NodeID: "missing", Status: structs.NodeStatusDown})
	must.NotNil(t, resp)
	mustApply(t, fsm, 2, &logentry.JobRegister{Job: testJob("example"), Eval: testEval("example")})

	must.Len(t, 2, heard)
	must.Error(t, heard[0].Err)
	must.Eq(t, 1, heard[0].Index)
	must.NoError(t, heard[1].Err)
	must.Nil(t, heard[1].Changes, must.Sprint("no listener asked for the rows"))

	fsm.Listen(Listener{Changes: true, Apply: func(Applied) {}})
	mustApply(t, fsm, 3, &logentry.JobRegister{Job: testJob("other"), Eval: testEval("other")})
	must.NotNil(t, heard[2].Changes)
}
