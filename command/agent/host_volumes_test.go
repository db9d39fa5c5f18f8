package agent

import (
	"errors"
	"fmt"
	"testing"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// hostVolumeJob is a batch job whose group asks for the host volume
// source; mount adds a volume_mount to its raw_exec task.
func hostVolumeJob(id, source string, mount bool) map[string]any {
	job := batchJobJSON(id)
	group := job["TaskGroups"].([]any)[0].(map[string]any)
	group["Volumes"] = map[string]any{"in": map[string]any{"Type": "host", "Source": source, "ReadOnly": true}}
	task := group["Tasks"].([]any)[0].(map[string]any)
	task["Config"] = map[string]any{"command": "/bin/true"}
	if mount {
		task["VolumeMounts"] = []any{map[string]any{"Volume": "in", "Destination": "/in"}}
	}
	return job
}

// TestHostVolumes_Agent: a client's host_volume blocks show in its node
// as Nomad's API has them; a group is placed where its volume is, and
// otherwise fails with the missing volume named; a raw_exec task that
// mounts a volume fails, as in Nomad, rather than run without it.
func TestHostVolumes_Agent(t *testing.T) {
	dir := t.TempDir()
	a := testClientAgent(t, func(c *config.Config) {
		c.Client.HostVolumes = map[string]*structs.ClientHostVolume{"data": {Path: dir, ReadOnly: true}}
	})
	srv := a.Server()

	var node nomadapi.Node
	get(t, a, "/v1/node/"+a.Client().NodeID(), &node)
	must.Eq(t, map[string]*nomadapi.HostVolumeInfo{"data": {Path: dir, ReadOnly: true}}, node.HostVolumes)

	placed := registerJob(t, a, hostVolumeJob("with-volume", "data", false))
	waitEvalComplete(t, a, placed.EvalID)
	allocs, err := srv.State().AllocsByJob(nil, structs.DefaultNamespace, "with-volume")
	must.NoError(t, err)
	must.SliceLen(t, 1, allocs)
	waitAlloc(t, srv, allocs[0].ID, "complete", clientStatusIs(structs.AllocClientStatusComplete))

	missing := registerJob(t, a, hostVolumeJob("without-volume", "nope", false))
	eval := waitEvalComplete(t, a, missing.EvalID)
	m := eval.FailedTGAllocs["maxrun"]
	must.NotNil(t, m)
	must.Eq(t, map[string]int{"missing compatible host volumes: nope": 1}, m.ConstraintFiltered)
	allocs, err = srv.State().AllocsByJob(nil, structs.DefaultNamespace, "without-volume")
	must.NoError(t, err)
	must.SliceEmpty(t, allocs)

	mounted := registerJob(t, a, hostVolumeJob("raw-exec-mount", "data", true))
	waitEvalComplete(t, a, mounted.EvalID)
	allocs, err = srv.State().AllocsByJob(nil, structs.DefaultNamespace, "raw-exec-mount")
	must.NoError(t, err)
	must.SliceLen(t, 1, allocs)
	failed := waitAlloc(t, srv, allocs[0].ID, "failed", clientStatusIs(structs.AllocClientStatusFailed))
	var msgs []string
	for _, ev := range failed.TaskStates["maxrun"].Events {
		msgs = append(msgs, ev.DisplayMessage+" "+ev.Message)
	}
	must.StrContains(t, fmt.Sprint(msgs), `volumes: task driver "raw_exec" cannot mount volumes`)
}

// waitEvalComplete waits for the evaluation to be complete and returns it.
func waitEvalComplete(t *testing.T, a *Agent, id string) *nomadapi.Evaluation {
	t.Helper()
	var eval nomadapi.Evaluation
	waitfor.NoError(t, "evaluation "+id+" complete", func() error {
		get(t, a, "/v1/evaluation/"+id, &eval)
		if eval.Status != "complete" {
			return errors.New("status " + eval.Status)
		}
		return nil
	})
	return &eval
}
