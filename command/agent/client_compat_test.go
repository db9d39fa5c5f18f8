package agent

import (
	"strings"
	"testing"
	"time"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// TestCompat_OfficialClientAllocEndpoints reads an allocation's logs,
// files, stats and checks, and signals and restarts its task, with Nomad's
// own Go client, the way `nomad alloc logs` and `nomad alloc status` do:
// through the node's HTTP address that /v1/node/:id gives.
func TestCompat_OfficialClientAllocEndpoints(t *testing.T) {
	a := testClientAgent(t)
	job := rawExecJob("compat-logs", map[string]string{"web": "echo first; echo second; sleep 600"})
	placed := placeAlloc(t, a.Server(), job, a.Client().NodeID())
	waitAlloc(t, a.Server(), placed.ID, "running", clientStatusIs(structs.AllocClientStatusRunning))

	client, err := nomadapi.NewClient(&nomadapi.Config{Address: "http://" + a.HTTPAddr()})
	must.NoError(t, err)
	alloc, _, err := client.Allocations().Info(placed.ID, nil)
	must.NoError(t, err)

	cancel := make(chan struct{})
	defer close(cancel)
	frames, errs := client.AllocFS().Logs(alloc, true, "web", "stdout", "start", 0, cancel, nil)
	var got strings.Builder
	deadline := time.After(30 * time.Second)
	for got.String() != "first\nsecond\n" {
		select {
		case f, ok := <-frames:
			must.True(t, ok, must.Sprint("frame stream closed early"))
			must.Eq(t, "alloc/logs/web.stdout.0", f.File)
			got.Write(f.Data)
		case err := <-errs:
			t.Fatalf("log stream failed: %v", err)
		case <-deadline:
			t.Fatalf("log stream has %q", got.String())
		}
	}

	files, _, err := client.AllocFS().List(alloc, "alloc/logs", nil)
	must.NoError(t, err)
	names := make([]string, 0, len(files))
	for _, f := range files {
		names = append(names, f.Name)
	}
	must.SliceContains(t, names, "web.stdout.0")

	stats, err := client.Allocations().Stats(alloc, nil)
	must.NoError(t, err)
	must.Positive(t, stats.Tasks["web"].ResourceUsage.MemoryStats.RSS)

	checks, err := client.Allocations().Checks(placed.ID, nil)
	must.NoError(t, err)
	must.MapEmpty(t, checks)

	must.NoError(t, client.Allocations().Signal(alloc, nil, "web", "SIGWINCH"))
	must.NoError(t, client.Allocations().Restart(alloc, "web", nil))
	waitAlloc(t, a.Server(), placed.ID, "restarted", func(al *structs.Allocation) bool {
		ts := al.TaskStates["web"]
		return ts != nil && ts.Restarts == 1 && ts.State == structs.TaskStateRunning
	})
}
