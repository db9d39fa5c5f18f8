package nomad

import (
	"context"
	"errors"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/membership"
	"github.com/drover-io/drover/structs"
)

func TestServer_DevModeBecomesLeader(t *testing.T) {
	s := startServer(t, testConfig(t, "dev"))
	waitForLeader(t, s)
	waitfor.True(t, "leadership", s.IsLeader)

	must.Eq(t, s.RPCAdvertise(), s.Leader())
	must.True(t, s.KnownLeader())
	must.Eq(t, 0, s.LastContact())
	must.Eq(t, []string{s.RPCAdvertise()}, s.Peers())
	must.Eq(t, "127.0.0.1:4646", s.LeaderHTTPAddr())
	must.NotEq(t, 0, s.RPCAddr().(*net.TCPAddr).Port, must.Sprint("port 0 must be replaced by the bound port"))

	members := s.Members()
	must.Len(t, 1, members)
	must.Eq(t, s.NodeID(), members[0].ID)
	must.Eq(t, membership.StatusAlive, members[0].Status)
	must.True(t, members[0].Voter)
	must.Eq(t, "dev.global", members[0].Name)
}

// The server schedules nothing (num_schedulers = 0), so what registration
// wrote is still as it wrote it when the test reads it.
func TestServer_RegisterJob(t *testing.T) {
	s := startServer(t, unscheduledConfig(t, "dev"))
	waitForLeader(t, s)
	ctx := testCtx(t)

	job := testJob("example")
	resp, err := s.RegisterJob(ctx, &JobRegisterRequest{Job: job})
	must.NoError(t, err)
	must.NotEq(t, "", resp.EvalID)
	must.Positive(t, resp.Index)
	must.Eq(t, resp.Index, resp.EvalCreateIndex)
	must.Eq(t, resp.Index, resp.JobModifyIndex)
	must.Eq(t, uint64(0), job.JobModifyIndex, must.Sprint("the caller's job must not be modified"))

	stored, err := s.State().JobByID(nil, structs.DefaultNamespace, "example")
	must.NoError(t, err)
	must.NotNil(t, stored)
	must.Eq(t, structs.JobStatusPending, stored.Status)
	must.Positive(t, stored.SubmitTime)

	eval, err := s.State().EvalByID(nil, resp.EvalID)
	must.NoError(t, err)
	must.NotNil(t, eval)
	must.Eq(t, structs.EvalTriggerJobRegister, eval.TriggeredBy)
	must.Eq(t, structs.EvalStatusPending, eval.Status)
	must.Eq(t, "example", eval.JobID)
	must.Eq(t, job.Priority, eval.Priority)
	must.Eq(t, structs.JobTypeBatch, eval.Type)
	must.Eq(t, resp.JobModifyIndex, eval.JobModifyIndex)
	must.Positive(t, eval.CreateTime)

	// Registering the same spec again keeps the job modify index.
	again, err := s.RegisterJob(ctx, &JobRegisterRequest{Job: testJob("example")})
	must.NoError(t, err)
	must.Eq(t, resp.JobModifyIndex, again.JobModifyIndex)
	must.Greater(t, resp.Index, again.Index)
}

func TestServer_RegisterJob_EnforceIndex(t *testing.T) {
	s := startServer(t, testConfig(t, "dev"))
	waitForLeader(t, s)
	ctx := testCtx(t)

	// Index 0 means the job must not exist yet.
	first, err := s.RegisterJob(ctx, &JobRegisterRequest{Job: testJob("example"), EnforceIndex: true})
	must.NoError(t, err)

	changed := testJob("example")
	changed.Meta = map[string]string{"version": "2"}
	_, err = s.RegisterJob(ctx, &JobRegisterRequest{Job: changed, EnforceIndex: true, JobModifyIndex: first.JobModifyIndex + 100})
	must.ErrorIs(t, err, ErrIndexConflict)
	must.StrContains(t, err.Error(), "job exists with conflicting job modify index")

	_, err = s.RegisterJob(ctx, &JobRegisterRequest{Job: changed, EnforceIndex: true})
	must.ErrorIs(t, err, ErrIndexConflict)

	second, err := s.RegisterJob(ctx, &JobRegisterRequest{Job: changed, EnforceIndex: true, JobModifyIndex: first.JobModifyIndex})
	must.NoError(t, err)
	must.Greater(t, first.JobModifyIndex, second.JobModifyIndex)
}

func TestServer_RegisterJob_Invalid(t *testing.T) {
	s := startServer(t, testConfig(t, "dev"))
	waitForLeader(t, s)

	job := testJob("example")
	job.TaskGroups[0].Tasks[0].Driver = ""
	_, err := s.RegisterJob(testCtx(t), &JobRegisterRequest{Job: job})
	must.ErrorIs(t, err, ErrInvalidRequest)
	must.StrContains(t, err.Error(), "Missing driver")

	_, err = s.RegisterJob(testCtx(t), &JobRegisterRequest{})
	must.ErrorIs(t, err, ErrInvalidRequest)

	jobs, err := s.State().Jobs(nil)
	must.NoError(t, err)
	must.Len(t, 0, jobs)
}

func TestServer_RegisterPeriodicJob_NoEval(t *testing.T) {
	s := startServer(t, testConfig(t, "dev"))
	waitForLeader(t, s)

	resp, err := s.RegisterJob(testCtx(t), &JobRegisterRequest{Job: testPeriodicJob("cron")})
	must.NoError(t, err)
	must.Eq(t, "", resp.EvalID)
	evals, err := s.State().Evals(nil)
	must.NoError(t, err)
	must.Len(t, 0, evals)
}

func TestServer_DeregisterJob(t *testing.T) {
	cases := []struct {
		name  string
		purge bool
	}{
		{"stop", false},
		{"purge", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, testConfig(t, "dev"))
			waitForLeader(t, s)
			ctx := testCtx(t)

			_, err := s.RegisterJob(ctx, &JobRegisterRequest{Job: testJob("example")})
			must.NoError(t, err)
			resp, err := s.DeregisterJob(ctx, &JobDeregisterRequest{
				Namespace: structs.DefaultNamespace, JobID: "example", Purge: tc.purge,
			})
			must.NoError(t, err)
			must.NotEq(t, "", resp.EvalID)

			job, err := s.State().JobByID(nil, structs.DefaultNamespace, "example")
			must.NoError(t, err)
			if tc.purge {
				must.Nil(t, job)
			} else {
				must.NotNil(t, job)
				must.True(t, job.Stop)
			}
			eval, err := s.State().EvalByID(nil, resp.EvalID)
			must.NoError(t, err)
			must.NotNil(t, eval)
			must.Eq(t, structs.EvalTriggerJobDeregister, eval.TriggeredBy)
		})
	}
}

// TestServer_DeregisterJob_NotFound: stopping a job that does not exist
// succeeds, as in Nomad, without a write or an evaluation, at an index
// a read can wait for.
func TestServer_DeregisterJob_NotFound(t *testing.T) {
	s := startServer(t, testConfig(t, "dev"))
	waitForLeader(t, s)
	mustRegister(t, s, testJob("other"))

	applied, err := s.State().AppliedIndex(nil)
	must.NoError(t, err)
	resp, err := s.DeregisterJob(testCtx(t), &JobDeregisterRequest{Namespace: structs.DefaultNamespace, JobID: "missing"})
	must.NoError(t, err)
	must.Eq(t, "", resp.EvalID)
	must.GreaterEq(t, applied, resp.Index)
	evals, err := s.State().EvalsByJob(nil, structs.DefaultNamespace, "missing")
	must.NoError(t, err)
	must.SliceEmpty(t, evals)
}

func TestServer_NodeWrites(t *testing.T) {
	s := startServer(t, testConfig(t, "dev"))
	waitForLeader(t, s)
	ctx := testCtx(t)

	job := testJob("example")
	_, err := s.RegisterJob(ctx, &JobRegisterRequest{Job: job})
	must.NoError(t, err)
	system := testJob("sys")
	system.Type = structs.JobTypeSystem
	system.TaskGroups[0].ReschedulePolicy = nil
	_, err = s.RegisterJob(ctx, &JobRegisterRequest{Job: system})
	must.NoError(t, err)

	node := testNode(structs.GenerateUUID())
	node.Status = ""
	reg, err := s.NodeRegister(ctx, node)
	must.NoError(t, err)
	must.Len(t, 0, reg.EvalIDs, must.Sprint("an initializing node affects no job"))
	stored, err := s.State().NodeByID(nil, node.ID)
	must.NoError(t, err)
	must.Eq(t, structs.NodeStatusInit, stored.Status)

	// An allocation on the node, then the node becomes ready: both the
	// job with the allocation and the system job are evaluated.
	jobInState, err := s.State().JobByID(nil, structs.DefaultNamespace, "example")
	must.NoError(t, err)
	alloc := testAlloc(jobInState, node.ID)
	_, err = s.Apply(ctx, logentry.MsgAllocUpdate, &logentry.AllocUpdate{Allocs: []*structs.Allocation{alloc}})
	must.NoError(t, err)
	ready, err := s.NodeUpdateStatus(ctx, node.ID, structs.NodeStatusReady)
	must.NoError(t, err)
	must.Len(t, 2, ready.EvalIDs)
	must.Eq(t, ready.Index, ready.EvalCreateIndex)
	for _, id := range ready.EvalIDs {
		eval, err := s.State().EvalByID(nil, id)
		must.NoError(t, err)
		must.Eq(t, structs.EvalTriggerNodeUpdate, eval.TriggeredBy)
		must.Eq(t, node.ID, eval.NodeID)
	}

	_, err = s.NodeUpdateEligibility(ctx, node.ID, structs.NodeSchedulingIneligible)
	must.NoError(t, err)
	_, err = s.NodeUpdateDrain(ctx, node.ID, &structs.DrainStrategy{Deadline: time.Hour}, false)
	must.NoError(t, err)
	drained, err := s.State().NodeByID(nil, node.ID)
	must.NoError(t, err)
	must.True(t, drained.Drain)
	must.False(t, drained.DrainStrategy.ForceDeadline.IsZero())

	_, err = s.NodeUpdateEligibility(ctx, node.ID, structs.NodeSchedulingEligible)
	must.ErrorIs(t, err, ErrInvalidRequest, must.Sprint("a draining node cannot be made eligible"))

	undrained, err := s.NodeUpdateDrain(ctx, node.ID, nil, true)
	must.NoError(t, err)
	must.Len(t, 2, undrained.EvalIDs)

	_, err = s.NodeUpdateStatus(ctx, "missing", structs.NodeStatusDown)
	must.ErrorIs(t, err, ErrNotFound)
	_, err = s.NodeUpdateStatus(ctx, node.ID, "sleepy")
	must.ErrorIs(t, err, ErrInvalidRequest)

	dereg, err := s.NodeDeregister(ctx, []string{node.ID})
	must.NoError(t, err)
	must.Len(t, 1, dereg.EvalIDs, must.Sprint("the job that lost its allocation is evaluated"))
	gone, err := s.State().NodeByID(nil, node.ID)
	must.NoError(t, err)
	must.Nil(t, gone)
}

// The allocations are on a node the servers do not know; a scheduler would
// stop them, so the server schedules nothing.
func TestServer_AllocWrites(t *testing.T) {
	s := startServer(t, unscheduledConfig(t, "dev"))
	waitForLeader(t, s)
	ctx := testCtx(t)

	_, err := s.RegisterJob(ctx, &JobRegisterRequest{Job: testJob("example")})
	must.NoError(t, err)
	job, err := s.State().JobByID(nil, structs.DefaultNamespace, "example")
	must.NoError(t, err)
	a1, a2 := testAlloc(job, "node-1"), testAlloc(job, "node-1")
	_, err = s.Apply(ctx, logentry.MsgAllocUpdate, &logentry.AllocUpdate{Allocs: []*structs.Allocation{a1, a2}})
	must.NoError(t, err)

	// A failure reported by the client gets one evaluation of the job.
	failed := &structs.Allocation{ID: a1.ID, ClientStatus: structs.AllocClientStatusFailed}
	index, err := s.UpdateAllocsFromClient(ctx, []*structs.Allocation{failed})
	must.NoError(t, err)
	stored, err := s.State().AllocByID(nil, a1.ID)
	must.NoError(t, err)
	must.Eq(t, structs.AllocClientStatusFailed, stored.ClientStatus)
	must.Eq(t, index, stored.ModifyIndex)
	must.Positive(t, stored.ModifyTime)
	evals, err := s.State().EvalsByJob(nil, structs.DefaultNamespace, "example")
	must.NoError(t, err)
	// The scheduler may add follow-ups of its own; count the update's.
	retries := 0
	for _, e := range evals {
		if e.TriggeredBy == structs.EvalTriggerRetryFailedAlloc && e.CreateIndex == index {
			retries++
		}
	}
	must.Eq(t, 1, retries)

	stop, err := s.AllocStop(ctx, a2.ID)
	must.NoError(t, err)
	stored, err = s.State().AllocByID(nil, a2.ID)
	must.NoError(t, err)
	must.Eq(t, structs.AllocDesiredStatusStop, stored.DesiredStatus)
	eval, err := s.State().EvalByID(nil, stop.EvalID)
	must.NoError(t, err)
	must.Eq(t, structs.EvalTriggerAllocStop, eval.TriggeredBy)

	_, err = s.AllocStop(ctx, "missing")
	must.ErrorIs(t, err, ErrNotFound)
}

func TestServer_Apply(t *testing.T) {
	s := startServer(t, testConfig(t, "dev"))
	waitForLeader(t, s)
	ctx := testCtx(t)

	_, err := s.Apply(ctx, logentry.MsgEvalUpdate, &logentry.NodeDeregister{NodeIDs: []string{"x"}})
	must.ErrorIs(t, err, ErrInvalidRequest, must.Sprint("type and entry must agree"))
	_, err = s.Apply(ctx, logentry.MsgEvalUpdate, "not an entry")
	must.ErrorIs(t, err, ErrInvalidRequest)
	_, err = s.Apply(ctx, logentry.MsgEvalUpdate, &logentry.EvalUpdate{Evals: []*structs.Evaluation{{ID: "no-job"}}})
	must.ErrorIs(t, err, ErrInvalidRequest, must.Sprint("entries are validated before they enter the log"))

	eval := testEval("a")
	index, err := s.UpsertEvals(ctx, []*structs.Evaluation{eval})
	must.NoError(t, err)
	stored, err := s.State().EvalByID(nil, eval.ID)
	must.NoError(t, err)
	must.Eq(t, index, stored.CreateIndex)
}

// TestServer_FSMListenerHearsTheRegister: a listener of the server's FSM
// is told of the entry a register applied, with its evaluation.
func TestServer_FSMListenerHearsTheRegister(t *testing.T) {
	s := startServer(t, testConfig(t, "dev"))
	waitForLeader(t, s)
	got := make(chan []*structs.Evaluation, 1)
	s.FSM().Listen(Listener{Apply: func(a Applied) {
		if evals := pendingEvals(a); len(evals) > 0 {
			select {
			case got <- evals:
			default:
			}
		}
	}})

	resp, err := s.RegisterJob(testCtx(t), &JobRegisterRequest{Job: testJob("example")})
	must.NoError(t, err)
	select {
	case evals := <-got:
		must.Len(t, 1, evals)
		must.Eq(t, resp.EvalID, evals[0].ID)
	case <-time.After(leaderWait):
		t.Fatal("the listener did not hear of the register")
	}
}

func TestServer_ShutdownIsIdempotentAndLeaksNothing(t *testing.T) {
	before := runtime.NumGoroutine()
	s, err := NewServer(testConfig(t, "dev"))
	must.NoError(t, err)
	waitForLeader(t, s)
	_, err = s.RegisterJob(testCtx(t), &JobRegisterRequest{Job: testJob("example")})
	must.NoError(t, err)

	must.NoError(t, s.Shutdown())
	must.NoError(t, s.Shutdown())

	// Goroutines end shortly after Shutdown returns; a few of the test
	// framework's own may come and go.
	waitfor.True(t, "goroutines to end", func() bool { return runtime.NumGoroutine() <= before+2 })

	_, err = s.RegisterJob(context.Background(), &JobRegisterRequest{Job: testJob("late")})
	must.Error(t, err)
}

func TestServer_WaitForLeaderHonoursContext(t *testing.T) {
	cfg := testConfig(t, "lonely")
	cfg.BootstrapExpect = 3 // never forms: nobody else exists
	s := startServer(t, cfg)

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := s.WaitForLeader(ctx)
	must.True(t, errors.Is(err, context.DeadlineExceeded))

	// A write without a leader fails with ErrNoLeader once its context
	// ends.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel2()
	_, err = s.RegisterJob(ctx2, &JobRegisterRequest{Job: testJob("example")})
	must.ErrorIs(t, err, ErrNoLeader)
}

func TestServer_BadConfig(t *testing.T) {
	cfg := testConfig(t, "bad")
	cfg.ServerJoin = []string{"127.0.0.1:notaport"}
	_, err := NewServer(cfg)
	must.ErrorContains(t, err, "server_join")

	cfg = testConfig(t, "bad")
	cfg.RPCAddr = &net.TCPAddr{IP: net.IPv4zero, Port: 0}
	_, err = NewServer(cfg)
	must.ErrorContains(t, err, "advertise")

	cfg = testConfig(t, "bad")
	cfg.BootstrapExpect = -1
	_, err = NewServer(cfg)
	must.ErrorContains(t, err, "bootstrap_expect")
}

// With num_schedulers = 0 the leader schedules nothing: a registration's
// evaluation waits, ready, in the broker.
func TestServer_NoSchedulers(t *testing.T) {
	s := startServer(t, unscheduledConfig(t, "dev"))
	waitForLeader(t, s)
	resp, err := s.RegisterJob(testCtx(t), &JobRegisterRequest{Job: testJob("example")})
	must.NoError(t, err)

	ready := func() bool {
		stats := s.EvalBrokerStats()
		return stats.TotalReady == 1 && stats.TotalUnacked == 0
	}
	waitfor.True(t, "the evaluation in the broker", ready)
	// A worker would dequeue it at once; for longer than that it stays.
	waitfor.Always(t, "the evaluation waits, ready, in the broker", 200*time.Millisecond, ready)
	must.Eq(t, structs.EvalStatusPending, evalStatus(t, s, resp.EvalID))
}
