package command

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/cli"
	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent"
	agentconfig "github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/drivers/mock"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/structs"
)

// allocTestAgent starts a dev agent in this process with a server and a
// client offering the mock driver, waits until the client's node is
// registered, and returns it with its address for -address.
func allocTestAgent(t *testing.T) (*agent.Agent, string) {
	t.Helper()
	cfg := agentconfig.DevConfig()
	cfg.Ports = agentconfig.Ports{HTTP: 0, RPC: 0}
	cfg.NodeName = "alloc-cli-test"
	cfg.Plugins[mock.DriverName] = &agentconfig.PluginConfig{Name: mock.DriverName, Config: map[string]any{"enabled": true}}
	logger := hclog.New(&hclog.LoggerOptions{Name: "agent", Level: hclog.Warn, Output: testLogWriter{t}})
	a, err := agent.NewAgent(cfg, logger)
	must.NoError(t, err)
	t.Cleanup(func() { must.NoError(t, a.Shutdown()) })
	select {
	case <-a.Client().Registered():
	case <-time.After(30 * time.Second):
		t.Fatal("client did not register")
	}
	return a, "http://" + a.HTTPAddr()
}

// mockJob is a batch job with one group of mock tasks, each with its
// config, canonical as stored. It is registered without an evaluation, so
// that no scheduler places it: the tests place its allocations.
func mockJob(t *testing.T, a *agent.Agent, id string, tasks map[string]map[string]any) *structs.Job {
	t.Helper()
	tg := &structs.TaskGroup{Name: "group", Count: 1}
	for name, config := range tasks {
		tg.Tasks = append(tg.Tasks, &structs.Task{Name: name, Driver: mock.DriverName, Config: config})
	}
	job := &structs.Job{
		ID: id, Name: id, Namespace: structs.DefaultNamespace, Type: structs.JobTypeBatch,
		Datacenters: []string{"dc1"}, TaskGroups: []*structs.TaskGroup{tg},
	}
	job.Canonicalize()
	for _, task := range tg.Tasks {
		task.RestartPolicy = &structs.RestartPolicy{Interval: time.Hour, Delay: time.Second, Mode: structs.RestartPolicyModeFail}
	}
	_, err := a.Server().Apply(context.Background(), logentry.MsgJobRegister, &logentry.JobRegister{Job: job})
	must.NoError(t, err)
	stored, err := a.Server().State().JobByID(nil, job.Namespace, job.ID)
	must.NoError(t, err)
	return stored
}

// placeMockAlloc places an allocation of job on the agent's own node.
func placeMockAlloc(t *testing.T, a *agent.Agent, job *structs.Job) *structs.Allocation {
	t.Helper()
	alloc := &structs.Allocation{
		ID:            structs.GenerateUUID(),
		Namespace:     job.Namespace,
		EvalID:        structs.GenerateUUID(),
		Name:          job.ID + ".group[0]",
		NodeID:        a.Client().NodeID(),
		NodeName:      "alloc-cli-test",
		JobID:         job.ID,
		Job:           job,
		TaskGroup:     "group",
		DesiredStatus: structs.AllocDesiredStatusRun,
		ClientStatus:  structs.AllocClientStatusPending,
		CreateTime:    time.Now().UnixNano(),
	}
	_, err := a.Server().Apply(context.Background(), logentry.MsgAllocUpdate, &logentry.AllocUpdate{Allocs: []*structs.Allocation{alloc}})
	must.NoError(t, err)
	return alloc
}

// waitAllocState polls the server's copy of an allocation until cond holds.
func waitAllocState(t *testing.T, a *agent.Agent, id string, cond func(*structs.Allocation) bool) *structs.Allocation {
	t.Helper()
	var got *structs.Allocation
	waitfor.NoError(t, "allocation "+id, func() error {
		al, err := a.Server().State().AllocByID(nil, id)
		switch {
		case err != nil:
			return err
		case al == nil:
			return errors.New("the server has no such allocation")
		}
		got = al
		if !cond(al) {
			return fmt.Errorf("last: %+v", al)
		}
		return nil
	})
	return got
}

// runCommand runs cmd with args and returns its exit code, stdout and
// stderr.
func runCommand(cmd cli.Command, ui *cli.MockUi, args ...string) (int, string, string) {
	code := cmd.Run(args)
	return code, ui.OutputWriter.String(), ui.ErrorWriter.String()
}
