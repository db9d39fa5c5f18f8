package nomad

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// fakeNode is a ready client node with room for a few default-sized
// allocations (100 MHz, 300 MB each), as a client would register it.
func fakeNode(name string) *structs.Node {
	return &structs.Node{
		ID:                    structs.GenerateUUID(),
		Name:                  name,
		Datacenter:            "dc1",
		NodePool:              structs.DefaultNodePool,
		Status:                structs.NodeStatusReady,
		SchedulingEligibility: structs.NodeSchedulingEligible,
		Attributes: map[string]string{
			"kernel.name":       "linux",
			"cpu.arch":          "amd64",
			"driver.raw_exec":   "1",
			"unique.hostname":   name,
			"nomad.version":     "1.9.0",
			"os.name":           "debian",
			"unique.network.ip": "127.0.0.1",
		},
		Drivers: map[string]*structs.DriverInfo{
			"raw_exec": {Detected: true, Healthy: true},
			"mock":     {Detected: true, Healthy: true},
		},
		NodeResources: &structs.NodeResources{
			Cpu:    structs.NodeCpuResources{CpuShares: 1000, TotalCpuCores: 2},
			Memory: structs.NodeMemoryResources{MemoryMB: 2048},
			Disk:   structs.NodeDiskResources{DiskMB: 10000},
		},
	}
}

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
