package agent

import (
	"testing"
	"time"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"
)

// TestCompat_OfficialClient drives the agent with Nomad's own Go client, the
// authoritative wire contract: everything must work without error and read
// back what was written.
func TestCompat_OfficialClient(t *testing.T) {
	a := testAgent(t)
	client, err := nomadapi.NewClient(&nomadapi.Config{Address: "http://" + a.HTTPAddr()})
	must.NoError(t, err)

	maxRun := 10 * time.Second
	job := nomadapi.NewBatchJob("compat", "compat", "global", 50)
	job.Datacenters = []string{"dc1"}
	group := nomadapi.NewTaskGroup("maxrun", 1)
	group.MaxRunDuration = &maxRun
	group.AddTask(nomadapi.NewTask("maxrun", "raw_exec").SetConfig("command", "/bin/sleep").SetConfig("args", []string{"1000"}))
	job.AddTaskGroup(group)

	reg, wm, err := client.Jobs().Register(job, nil)
	must.NoError(t, err)
	must.NotEq(t, "", reg.EvalID)
	must.Positive(t, wm.LastIndex)
	must.Eq(t, "", reg.Warnings)

	stubs, qm, err := client.Jobs().List(nil)
	must.NoError(t, err)
	must.Len(t, 1, stubs)
	must.Eq(t, "compat", stubs[0].ID)
	must.Eq(t, "batch", stubs[0].Type)
	must.Positive(t, qm.LastIndex)
	must.True(t, qm.KnownLeader)

	info, _, err := client.Jobs().Info("compat", nil)
	must.NoError(t, err)
	must.Eq(t, "compat", *info.ID)
	must.Eq(t, "batch", *info.Type)
	must.Eq(t, maxRun, *info.TaskGroups[0].MaxRunDuration)

	evals, _, err := client.Jobs().Evaluations("compat", nil)
	must.NoError(t, err)
	must.SliceContainsFunc(t, evals, reg.EvalID, func(e *nomadapi.Evaluation, id string) bool { return e.ID == id })

	eval, _, err := client.Evaluations().Info(reg.EvalID, nil)
	must.NoError(t, err)
	must.Eq(t, "compat", eval.JobID)
	must.Eq(t, "job-register", eval.TriggeredBy)

	summary, _, err := client.Jobs().Summary("compat", nil)
	must.NoError(t, err)
	must.Eq(t, "compat", summary.JobID)
	must.MapContainsKey(t, summary.Summary, "maxrun")

	self, err := client.Agent().Self()
	must.NoError(t, err)
	must.Eq[any](t, "global", self.Config["Region"])
	must.Eq[any](t, "dc1", self.Config["Datacenter"])
	must.Eq(t, "test-agent.global", self.Member.Name)

	leader, err := client.Status().Leader()
	must.NoError(t, err)
	must.Eq(t, a.Server().RPCAdvertise(), leader)

	_, _, err = client.Jobs().Info("nope", nil)
	must.ErrorContains(t, err, "404")

	// What `nomad job run` sends: the job canonicalised by Nomad's client,
	// full of its defaults. It registers without a warning: for a batch
	// job every default is a feature Drover has (ephemeral_disk's size) or
	// asks for nothing (sticky = false).
	canonical := nomadapi.NewBatchJob("canonical", "canonical", "global", 50)
	canonical.AddTaskGroup(nomadapi.NewTaskGroup("g", 1).AddTask(nomadapi.NewTask("t", "raw_exec").SetConfig("command", "/bin/true")))
	canonical.Canonicalize()
	reg, _, err = client.Jobs().Register(canonical, nil)
	must.NoError(t, err)
	must.Eq(t, "", reg.Warnings)

	_, _, err = client.Jobs().Deregister("compat", true, nil)
	must.NoError(t, err)
	_, _, err = client.Jobs().Info("compat", nil)
	must.ErrorContains(t, err, "404")
}
