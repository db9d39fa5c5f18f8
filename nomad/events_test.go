package nomad

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/state"
	"github.com/drover-io/drover/nomad/stream"
	"github.com/drover-io/drover/structs"
)

// eventFSM is an FSM that publishes to a broker, and a subscription to
// all of it.
func eventFSM(t *testing.T) (*FSM, *stream.Broker, *stream.Subscription) {
	t.Helper()
	fsm := testFSM(t)
	broker := stream.NewBroker(1000, 0)
	fsm.Listen(eventListener(broker))
	sub, err := broker.Subscribe(stream.SubscribeRequest{})
	must.NoError(t, err)
	return fsm, broker, sub
}

// eventLine is an event as the tests compare it.
func eventLine(e *stream.Event) string {
	line := fmt.Sprintf("%s %s %s", e.Topic, e.Type, e.Key)
	if e.Deleted {
		line += " deleted"
	}
	return line
}

// nextBatch reads the next batch, which must be ready, as lines.
func nextBatch(t *testing.T, sub *stream.Subscription) (uint64, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	b, err := sub.Next(ctx)
	must.NoError(t, err)
	var lines []string
	for _, e := range b.Events {
		lines = append(lines, eventLine(e))
	}
	return b.Index, lines
}

func TestFSMEvents_JobAllocEvalLife(t *testing.T) {
	fsm, _, sub := eventFSM(t)
	job := testJob("example")
	eval := testEval("example")
	mustApply(t, fsm, 5, &logentry.JobRegister{Job: job, Eval: eval})
	index, lines := nextBatch(t, sub)
	must.Eq(t, 5, index)
	must.Eq(t, []string{"Job JobRegistered example", "Evaluation EvaluationUpdated " + eval.ID}, lines)

	// The plan's placement: the allocation arrives without a job and
	// gets the stored one, which its event carries.
	alloc := testAlloc(job, "node-1")
	alloc.Job = nil
	alloc.ClientStatus = structs.AllocClientStatusPending
	mustApply(t, fsm, 6, &logentry.AllocUpdate{Allocs: []*structs.Allocation{alloc}, Job: job})
	_, lines = nextBatch(t, sub)
	must.Eq(t, []string{"Allocation PlanResult " + alloc.ID}, lines)

	mustApply(t, fsm, 7, &logentry.AllocClientUpdate{Allocs: []*structs.Allocation{{
		ID: alloc.ID, ClientStatus: structs.AllocClientStatusComplete, ClientDescription: structs.AllocTimeoutReasonMaxRunDuration,
	}}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	b, err := sub.Next(ctx)
	must.NoError(t, err)
	must.Eq(t, []string{"Allocation AllocationUpdated " + alloc.ID}, []string{eventLine(b.Events[0])})
	must.Eq(t, []string{"example"}, b.Events[0].FilterKeys)
	must.Eq(t, structs.DefaultNamespace, b.Events[0].Namespace)
	// The payload is the stored allocation after the update, job and
	// all, so that the wire form can tell its deadline.
	stored, err := fsm.State().AllocByID(nil, alloc.ID)
	must.NoError(t, err)
	must.True(t, b.Events[0].Payload.(*structs.Allocation) == stored)
	must.NotNil(t, stored.Job)

	mustApply(t, fsm, 8, &logentry.AllocDesiredStatus{AllocIDs: []string{alloc.ID}, Desired: structs.AllocDesiredStatusStop})
	_, lines = nextBatch(t, sub)
	must.Eq(t, []string{"Allocation AllocationUpdateDesiredStatus " + alloc.ID}, lines)

	mustApply(t, fsm, 9, &logentry.JobStatusUpdate{Namespace: job.Namespace, JobID: job.ID, Status: structs.JobStatusDead})
	_, lines = nextBatch(t, sub)
	must.Eq(t, []string{"Job JobRegistered example"}, lines)

	// Garbage collection and periodic launches publish nothing.
	mustApply(t, fsm, 10, &logentry.EvalDelete{Evals: []string{eval.ID}, Allocs: []string{alloc.ID}})
	mustApply(t, fsm, 11, &logentry.PeriodicLaunch{Launch: &state.PeriodicLaunch{ID: "example", Namespace: job.Namespace, Launch: time.Unix(1, 0)}})

	stopEval := testEval("example")
	mustApply(t, fsm, 12, &logentry.JobDeregister{Namespace: job.Namespace, JobID: job.ID, Eval: stopEval})
	index, lines = nextBatch(t, sub)
	must.Eq(t, 12, index)
	must.Eq(t, []string{"Job JobDeregistered example", "Evaluation EvaluationUpdated " + stopEval.ID}, lines)

	mustApply(t, fsm, 13, &logentry.JobDeregister{Namespace: job.Namespace, JobID: job.ID, Purge: true})
	_, lines = nextBatch(t, sub)
	must.Eq(t, []string{"Job JobDeregistered example deleted"}, lines)
}

func TestFSMEvents_NodeLife(t *testing.T) {
	fsm, _, sub := eventFSM(t)
	node := testNode(structs.GenerateUUID())
	mustApply(t, fsm, 1, &logentry.NodeRegister{Node: node})
	mustApply(t, fsm, 2, &logentry.NodeUpdateEligibility{NodeID: node.ID, Eligibility: structs.NodeSchedulingIneligible, UpdatedAt: 2})
	mustApply(t, fsm, 3, &logentry.NodeUpdateDrain{NodeID: node.ID, DrainStrategy: &structs.DrainStrategy{Deadline: time.Minute}, UpdatedAt: 3})
	mustApply(t, fsm, 4, &logentry.NodeUpdateStatus{NodeID: node.ID, Status: structs.NodeStatusDown, UpdatedAt: 4})
	mustApply(t, fsm, 5, &logentry.NodeDeregister{NodeIDs: []string{node.ID}})
	var got []string
	for range 5 {
		_, lines := nextBatch(t, sub)
		got = append(got, lines...)
	}
	must.Eq(t, []string{
		"Node NodeRegistration " + node.ID,
		"Node NodeEligibility " + node.ID,
		"Node NodeDrain " + node.ID,
		"Node NodeEvent " + node.ID,
		"Node NodeDeregistration " + node.ID + " deleted",
	}, got)
}

func TestFSMEvents_FailedEntryWithoutWritesPublishesNothing(t *testing.T) {
	fsm, broker, _ := eventFSM(t)
	resp := applyEntry(t, fsm, 1, &logentry.NodeUpdateStatus{NodeID: "missing", Status: structs.NodeStatusDown})
	must.NotNil(t, resp)
	must.Eq(t, stream.Stats{}, broker.Stats())
}

func TestFSMEvents_RestoreResetsTheStream(t *testing.T) {
	fsm, broker, sub := eventFSM(t)
	mustApply(t, fsm, 1, &logentry.JobRegister{Job: testJob("a")})
	mustApply(t, fsm, 2, &logentry.JobRegister{Job: testJob("b")})
	snap, err := fsm.Snapshot()
	must.NoError(t, err)
	sink := &memorySink{}
	must.NoError(t, snap.Persist(sink))

	must.NoError(t, fsm.Restore(io.NopCloser(bytes.NewReader(sink.Bytes()))))
	_, err = sub.Next(context.Background())
	must.ErrorIs(t, err, stream.ErrReset)
	must.Eq(t, stream.Stats{Floor: 2, Last: 2}, broker.Stats())
}
