package command

import (
	"testing"

	"github.com/hashicorp/cli"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

func TestPickJobAlloc(t *testing.T) {
	stub := func(id string, index uint64, status string) *api.AllocationListStub {
		return &api.AllocationListStub{ID: id, CreateIndex: index, ClientStatus: status}
	}
	first := func(int) int { return 0 }
	last := func(n int) int { return n - 1 }

	must.Nil(t, pickJobAlloc(nil, first))
	// Without a running one: the newest, whatever its status.
	ended := []*api.AllocationListStub{stub("a", 3, "complete"), stub("b", 9, "failed"), stub("c", 5, "pending")}
	must.Eq(t, "b", pickJobAlloc(ended, first).ID)
	// A running one wins over a newer one that ended.
	withRunning := append(ended, stub("d", 1, "running"))
	must.Eq(t, "d", pickJobAlloc(withRunning, last).ID)
	// Among running ones, the random choice decides, in ID order.
	two := append(withRunning, stub("e", 2, "running"))
	must.Eq(t, "d", pickJobAlloc(two, first).ID)
	must.Eq(t, "e", pickJobAlloc(two, last).ID)
}

// TestAllocLogs_Job: alloc logs -job <job> [task] reads the logs of one of
// the job's allocations, a running one before a newer one that ended, as
// Nomad's CLI does.
func TestAllocLogs_Job(t *testing.T) {
	a, addr := allocTestAgent(t)
	logs := func(args ...string) (int, string, string) {
		ui := cli.NewMockUi()
		return runCommand(&AllocLogsCommand{Meta: Meta{Ui: ui}}, ui, append([]string{"-address=" + addr}, args...)...)
	}

	job := mockJob(t, a, "logs-by-job", map[string]map[string]any{"web": {"run_for": "10ms", "stdout_string": "ended\n"}})
	code, _, errOut := logs("-job", "logs-by-job")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, `Job "logs-by-job" has no allocations`)

	done := placeMockAlloc(t, a, job)
	waitAllocState(t, a, done.ID, func(al *structs.Allocation) bool { return al.ClientStatus == structs.AllocClientStatusComplete })
	code, out, errOut := logs("-job", "logs-by", "web")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.Eq(t, "ended\n", out)

	// A running allocation, then a newer one that ends: -job reads the
	// running one.
	job = mockJob(t, a, "logs-by-job", map[string]map[string]any{"web": {"run_for": "1h", "stdout_string": "running\n"}})
	running := placeMockAlloc(t, a, job)
	waitAllocState(t, a, running.ID, func(al *structs.Allocation) bool { return al.ClientStatus == structs.AllocClientStatusRunning })
	job = mockJob(t, a, "logs-by-job", map[string]map[string]any{"web": {"run_for": "10ms", "stdout_string": "newest\n"}})
	newest := placeMockAlloc(t, a, job)
	waitAllocState(t, a, newest.ID, func(al *structs.Allocation) bool { return al.ClientStatus == structs.AllocClientStatusComplete })
	code, out, errOut = logs("-job", "-task", "web", "logs-by-job")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.Eq(t, "running\n", out)

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-job", "nope"}, `No job(s) with prefix or id "nope" found`},
		{[]string{"-job", "logs-by-job", "db"}, `Could not find task named "db"`},
		// Without -job the argument is an allocation.
		{[]string{"logs-by-job"}, `No allocation(s) with prefix or id "logs-by-job" found`},
	} {
		code, _, errOut := logs(tc.args...)
		must.Eq(t, 1, code, must.Sprint(tc.args))
		must.StrContains(t, errOut, tc.want)
	}
}
