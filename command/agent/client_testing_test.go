package agent

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/structs"
)

// testClientAgent starts an agent in this process with a client (and, by
// default, a dev-mode server) on 127.0.0.1 with free ports, raw_exec
// enabled through the test binary as task supervisor, and waits until its
// node is registered. It is stopped when the test ends, unless the test
// stops it first.
func testClientAgent(t *testing.T, mutate ...func(*config.Config)) *Agent {
	t.Helper()
	cfg := config.DevConfig()
	cfg.Ports = config.Ports{HTTP: 0, RPC: 0}
	cfg.NodeName = "client-test"
	cfg.TaskSupervisorCmd = testSupervisorCmd()
	cfg.Telemetry.CollectionInterval = 100 * time.Millisecond
	for _, m := range mutate {
		m(cfg)
	}
	logger := hclog.New(&hclog.LoggerOptions{Name: "agent", Level: hclog.Warn, Output: testLogWriter{t}})
	a, err := NewAgent(cfg, logger)
	must.NoError(t, err)
	t.Cleanup(func() { _ = a.Shutdown() })
	select {
	case <-a.Client().Registered():
	case <-time.After(30 * time.Second):
		t.Fatal("client did not register")
	}
	return a
}

// rawExecJob is a batch job of one group whose tasks run the given shell
// scripts with raw_exec, canonicalised as the HTTP API would store it.
func rawExecJob(id string, scripts map[string]string) *structs.Job {
	tg := &structs.TaskGroup{Name: "group", Count: 1}
	for name, script := range scripts {
		tg.Tasks = append(tg.Tasks, &structs.Task{
			Name:   name,
			Driver: "raw_exec",
			Config: map[string]any{"command": "/bin/sh", "args": []any{"-c", script}},
		})
	}
	job := &structs.Job{
		ID: id, Name: id, Namespace: structs.DefaultNamespace, Type: structs.JobTypeBatch,
		Datacenters: []string{"dc1"},
		TaskGroups:  []*structs.TaskGroup{tg},
	}
	job.Canonicalize()
	for _, task := range tg.Tasks {
		task.KillTimeout = 2 * time.Second
		task.RestartPolicy = &structs.RestartPolicy{Attempts: 0, Interval: time.Hour, Delay: time.Second, Mode: structs.RestartPolicyModeFail}
	}
	return job
}

// placeAlloc writes an allocation of job on nodeID through srv, as a plan
// would, and returns it. The job travels inside the allocation, so that no
// scheduler takes an interest in it.
func placeAlloc(t *testing.T, srv *nomad.Server, job *structs.Job, nodeID string) *structs.Allocation {
	t.Helper()
	alloc := &structs.Allocation{
		ID:            structs.GenerateUUID(),
		Namespace:     job.Namespace,
		EvalID:        structs.GenerateUUID(),
		Name:          job.ID + ".group[0]",
		NodeID:        nodeID,
		JobID:         job.ID,
		Job:           job,
		TaskGroup:     "group",
		DesiredStatus: structs.AllocDesiredStatusRun,
		ClientStatus:  structs.AllocClientStatusPending,
		CreateTime:    time.Now().UnixNano(),
	}
	_, err := srv.Apply(context.Background(), logentry.MsgAllocUpdate, &logentry.AllocUpdate{Allocs: []*structs.Allocation{alloc}})
	must.NoError(t, err)
	return alloc
}

// placeDeployment stores a running deployment of job (a rolling update
// of its group "group") that placed the allocation allocID, and returns
// its ID.
func placeDeployment(t *testing.T, srv *nomad.Server, job *structs.Job, allocID string) string {
	t.Helper()
	alloc, err := srv.State().AllocByID(nil, allocID)
	must.NoError(t, err)
	must.NotNil(t, alloc)
	d := &structs.Deployment{
		ID: structs.GenerateUUID(), Namespace: job.Namespace, JobID: job.ID,
		JobVersion: job.Version, JobCreateIndex: job.CreateIndex,
		TaskGroups: map[string]*structs.DeploymentState{"group": {DesiredTotal: 2}},
		Status:     structs.DeploymentStatusRunning, StatusDescription: structs.DeploymentDescRunning,
	}
	placed := alloc.CopySkipJob()
	placed.DeploymentID = d.ID
	_, err = srv.Apply(context.Background(), logentry.MsgAllocUpdate, &logentry.AllocUpdate{Allocs: []*structs.Allocation{placed}, Deployment: d})
	must.NoError(t, err)
	return d.ID
}

// waitAlloc polls the server's copy of an allocation until cond holds and
// returns it.
func waitAlloc(t *testing.T, srv *nomad.Server, id string, what string, cond func(*structs.Allocation) bool) *structs.Allocation {
	t.Helper()
	var got *structs.Allocation
	waitfor.NoError(t, fmt.Sprintf("allocation %s: %s", id, what), func() error {
		a, err := srv.State().AllocByID(nil, id)
		switch {
		case err != nil:
			return err
		case a == nil:
			return errors.New("the server has no such allocation")
		}
		got = a
		if !cond(a) {
			return fmt.Errorf("last: %+v", a)
		}
		return nil
	})
	return got
}

func clientStatusIs(status string) func(*structs.Allocation) bool {
	return func(a *structs.Allocation) bool { return a.ClientStatus == status }
}

// events returns the types of a task's events, in order.
func eventTypes(ts *structs.TaskState) []string {
	out := make([]string, 0, len(ts.Events))
	for _, ev := range ts.Events {
		out = append(out, ev.Type)
	}
	return out
}

func countEvents(ts *structs.TaskState, typ string) int {
	n := 0
	for _, ev := range ts.Events {
		if ev.Type == typ {
			n++
		}
	}
	return n
}
