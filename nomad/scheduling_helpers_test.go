package nomad

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/internal/fixture"
	"github.com/drover-io/drover/structs"
)

// fakeNode is the shared fixture (see package fixture).
var fakeNode = fixture.ClientNode

// registerNodes registers fake nodes and returns them.
func registerNodes(t *testing.T, s *Server, n int) []*structs.Node {
	t.Helper()
	nodes := make([]*structs.Node, n)
	for i := range nodes {
		nodes[i] = fakeNode("node" + string(rune('a'+i)))
		_, err := s.NodeRegister(testCtx(t), nodes[i])
		must.NoError(t, err)
	}
	return nodes
}

// designJob is the DESIGN.md example, canonicalised.
func designJob() *structs.Job {
	d := 10 * time.Second
	job := &structs.Job{
		ID:          "maxrun",
		Name:        "maxrun",
		Type:        structs.JobTypeBatch,
		Datacenters: []string{"dc1"},
		TaskGroups: []*structs.TaskGroup{{
			Name:           "maxrun",
			Count:          1,
			MaxRunDuration: &d,
			Tasks: []*structs.Task{
				{Name: "maxrun", Driver: "raw_exec", Config: map[string]any{"command": "/bin/sleep", "args": []any{"1000m"}}},
				{Name: "maxrun2", Driver: "raw_exec", Config: map[string]any{"command": "/bin/sleep", "args": []any{"2s"}}},
			},
		}},
	}
	job.Canonicalize()
	return job
}

// liveAllocs returns the job's allocations that are meant to run.
func liveAllocs(t *testing.T, s *Server, jobID string) []*structs.Allocation {
	t.Helper()
	allocs, err := s.State().AllocsByJob(nil, structs.DefaultNamespace, jobID)
	must.NoError(t, err)
	var live []*structs.Allocation
	for _, a := range allocs {
		if !a.TerminalStatus() {
			live = append(live, a)
		}
	}
	return live
}

// jobStatus returns a job's stored status.
func jobStatus(t *testing.T, s *Server, jobID string) string {
	t.Helper()
	job, err := s.State().JobByID(nil, structs.DefaultNamespace, jobID)
	must.NoError(t, err)
	if job == nil {
		return ""
	}
	return job.Status
}

// evalStatus returns an evaluation's stored status.
func evalStatus(t *testing.T, s *Server, id string) string {
	t.Helper()
	eval, err := s.State().EvalByID(nil, id)
	must.NoError(t, err)
	if eval == nil {
		return ""
	}
	return eval.Status
}
