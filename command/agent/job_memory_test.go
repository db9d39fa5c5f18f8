package agent

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// Memory that does not multiply: a server agent and a client agent (over
// RPC, with its state on disk), both in this process, run a job of many
// groups whose specification is large next to an allocation. The heap
// grows by a few copies of the job, not by a copy per allocation, and the
// allocation still reads back over HTTP with its job, as Nomad's does.

// fatJob is a batch job of groups groups of one mock task each, whose
// groups carry metadata enough to make the job about size bytes of JSON.
func fatJob(id string, groups, size int) map[string]any {
	value := strings.Repeat("m", size/groups/8)
	tgs := make([]any, groups)
	for i := range tgs {
		meta := map[string]any{}
		for k := range 8 {
			meta[fmt.Sprintf("k%d", k)] = value
		}
		tgs[i] = map[string]any{
			"Name": fmt.Sprintf("g%03d", i), "Count": 1, "Meta": meta,
			"Tasks": []any{map[string]any{
				"Name": "t", "Driver": "mock_driver",
				"Config":    map[string]any{"run_for": "1h"},
				"Resources": map[string]any{"CPU": 1, "MemoryMB": 10},
			}},
		}
	}
	return map[string]any{"ID": id, "Name": id, "Type": "batch", "Datacenters": []string{"dc1"}, "TaskGroups": tgs}
}

// liveHeap is the heap's live bytes after garbage collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func withMockDriver(cfg *config.Config) {
	cfg.Plugins = map[string]*config.PluginConfig{"mock_driver": {Name: "mock_driver", Config: map[string]any{"enabled": true}}}
}

func TestMemory_jobVersionIsNotCopiedPerAllocation(t *testing.T) {
	const (
		groups  = 100
		jobSize = 2 << 20
		// Each side keeps one copy of the job, and the raft log cache
		// and the RPC codec's buffers hold the entries and the response
		// that carried it, once each: a few copies in all.
		jobCopies = 8
		// An allocation's own state on both sides: its runner, task
		// states and events, indexes. It is far below a copy of the job.
		perAlloc = 64 << 10
	)
	srv := testAgent(t, func(cfg *config.Config) { cfg.Server.EncryptKey = testEncryptKey })
	c := testClientAgent(t, withMockDriver, func(cfg *config.Config) {
		cfg.NodeName = "memory-client"
		cfg.Server.Enabled = false
		cfg.Client.RegistrationSecret = testRegistrationSecret
		cfg.DataDir = t.TempDir()
		cfg.Client.Servers = []string{srv.Server().RPCAddr().String()}
	})
	waitfor.True(t, "the node ready", func() bool {
		node, err := srv.Server().State().NodeByID(nil, c.Client().NodeID())
		return err == nil && node != nil && node.Status == structs.NodeStatusReady
	})

	job := fatJob("fat", groups, jobSize)
	body, err := json.Marshal(map[string]any{"Job": job})
	must.NoError(t, err)
	before := liveHeap()
	resp := do(t, srv, http.MethodPut, "/v1/jobs", body)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	body = nil

	var stubs []*api.AllocationListStub
	waitfor.True(t, "every allocation running", func() bool {
		stubs = nil
		get(t, srv, "/v1/job/fat/allocations", &stubs)
		if len(stubs) != groups {
			return false
		}
		for _, s := range stubs {
			if s.ClientStatus != structs.AllocClientStatusRunning {
				return false
			}
		}
		return true
	}, wait.Timeout(2*time.Minute))
	grown := int64(liveHeap()) - int64(before)
	bound := int64(jobCopies*jobSize + groups*perAlloc)
	t.Logf("heap grew %.1f MiB for %d allocations of a %.1f MiB job (bound %.1f MiB)",
		float64(grown)/(1<<20), groups, float64(jobSize)/(1<<20), float64(bound)/(1<<20))
	must.Less(t, bound, grown, must.Sprint("the heap grows with the allocations times the job"))

	// One copy per side, structurally. (A status update stores a shallow
	// copy of the job, so the stored job may be another struct than the
	// allocations' but holds the same groups.)
	allocs, err := srv.Server().State().AllocsByJob(nil, structs.DefaultNamespace, "fat")
	must.NoError(t, err)
	stored, err := srv.Server().State().JobByID(nil, structs.DefaultNamespace, "fat")
	must.NoError(t, err)
	var clientJob *structs.Job
	for _, a := range allocs {
		must.True(t, a.Job == allocs[0].Job, must.Sprintf("the server's allocation %s shares one job", a.ID))
		must.True(t, a.Job.TaskGroups[0] == stored.TaskGroups[0], must.Sprintf("the server's allocation %s holds the stored groups", a.ID))
		ar, err := c.Client().AllocRunner(a.ID)
		must.NoError(t, err)
		if clientJob == nil {
			clientJob = ar.Alloc().Job
		}
		must.True(t, ar.Alloc().Job == clientJob, must.Sprintf("the client's allocation %s shares one job", a.ID))
	}

	// The wire is Nomad's: an allocation carries its job.
	var alloc api.Allocation
	get(t, srv, "/v1/allocation/"+stubs[0].ID, &alloc)
	must.NotNil(t, alloc.Job)
	must.Eq(t, "fat", *alloc.Job.ID)
	must.Len(t, groups, alloc.Job.TaskGroups)
	must.Eq(t, stubs[0].TaskGroup, alloc.TaskGroup)
}
