package command

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

func TestJobStatus_ListAndOne(t *testing.T) {
	_, addr := testAgent(t)

	code, out, _ := runCLI(t, "", "job", "status", "-address", addr)
	must.Eq(t, 0, code)
	must.Eq(t, "No running jobs\n", out)

	evalID := runDetached(t, addr, "testdata/maxrun.hcl")

	code, out, errOut := runCLI(t, "", "job", "status", "-address", addr)
	must.Eq(t, 0, code, must.Sprint(errOut))
	lines := strings.Split(out, "\n")
	must.Eq(t, []string{"ID", "Type", "Priority", "Status", "Submit", "Date"}, strings.Fields(lines[0]))
	must.Eq(t, []string{"maxrun", "batch", "50", "pending"}, strings.Fields(lines[1])[:4])

	code, out, errOut = runCLI(t, "", "job", "status", "-address", addr, "maxr")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrHasPrefix(t, "ID            = maxrun\nName          = maxrun\nSubmit Date   = ", out)
	must.StrContains(t, out, "\nType          = batch\nPriority      = 50\nDatacenters   = *\n"+
		"Namespace     = default\nNode Pool     = default\nStatus        = pending\n"+
		"Periodic      = false\nParameterized = false\n")
	must.StrContains(t, out, "\nSummary\nTask Group  Queued  Starting  Running  Failed  Complete  Lost  Unknown\nmaxrun ")
	must.StrContains(t, out, "\nAllocations\nNo allocations placed")
	must.StrNotContains(t, out, "Evaluations")

	code, out, _ = runCLI(t, "", "job", "status", "-address", addr, "-short", "maxrun")
	must.Eq(t, 0, code)
	must.StrContains(t, out, "ID            = maxrun")
	must.StrNotContains(t, out, "Summary")

	code, out, _ = runCLI(t, "", "job", "status", "-address", addr, "-evals", "-verbose", "maxrun")
	must.Eq(t, 0, code)
	must.StrContains(t, out, "\nEvaluations\nID ")
	// Whether it placed anything depends on the scheduler, not the CLI.
	must.RegexMatch(t, regexp.MustCompile(evalID+`  50 +job-register +\w+ +(true|false)\n`), out)
}

func TestJobStatus_AllocationsWithDeadline(t *testing.T) {
	a, addr := testAgent(t)
	registerTestNode(t, a, testNodeID, "worker-1", structs.NodeSchedulingIneligible)
	evalID := runDetached(t, addr, "testdata/maxrun.hcl")
	placeTestAlloc(t, a, testAllocID, "maxrun", evalID, testNodeID)

	code, out, errOut := runCLI(t, "", "job", "status", "-address", addr, "maxrun")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.RegexMatch(t, regexp.MustCompile(
		`\nAllocations\nID +Node ID +Task Group +Version +Desired +Status +Created +Modified +Deadline\n`+
			`0a1b2c3d +f5a9b8c7 +maxrun +0 +run +running +\d+s ago +\d+s ago +in \d+s\n`), out)

	code, out, _ = runCLI(t, "", "job", "status", "-address", addr, "-verbose", "maxrun")
	must.Eq(t, 0, code)
	must.StrContains(t, out, testAllocID+"  "+testNodeID)
	must.RegexMatch(t, regexp.MustCompile(`running +\S+T\S+ +\S+T\S+ +\d{4}-\d\d-\d\dT\S+\n`), out)

	code, out, _ = runCLI(t, "", "job", "status", "-address", addr, "-all-allocs", "maxrun")
	must.Eq(t, 0, code)
	must.StrContains(t, out, "\n0a1b2c3d  ")
}

func TestJobStatus_PrefixMatchingSeveralJobs(t *testing.T) {
	_, addr := testAgent(t)
	runDetached(t, addr, writeJob(t, "web", ""))
	runDetached(t, addr, writeJob(t, "web-2", ""))

	code, _, errOut := runCLI(t, "", "job", "status", "-address", addr, "we")
	must.Eq(t, 1, code)
	must.StrHasPrefix(t, "Prefix matched multiple jobs\n\nID ", errOut)
	must.StrContains(t, errOut, "\nweb    ")
	must.StrContains(t, errOut, "\nweb-2  ")

	// An exact ID wins over the longer IDs it is a prefix of.
	code, out, errOut := runCLI(t, "", "job", "status", "-address", addr, "web")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, "ID            = web\n")
}

func TestJobStatus_PeriodicJob(t *testing.T) {
	_, addr := testAgent(t)
	path := writeJob(t, "nightly", `periodic {
    crons     = ["0 3 * * *"]
    time_zone = "UTC"
  }`)
	code, _, errOut := runCLI(t, "", "job", "run", "-address", addr, path)
	must.Eq(t, 0, code, must.Sprint(errOut))

	code, out, errOut := runCLI(t, "", "job", "status", "-address", addr, "nightly")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, "Periodic             = true\n")
	must.RegexMatch(t, regexp.MustCompile(`Next Periodic Launch = \S+T\S+ \(\S+ from now\)\n`), out)
	must.StrNotContains(t, out, "\nSummary\n")
	must.StrContains(t, out, "\nPreviously Launched Jobs\nNo instances of periodic job found")
}

func TestJobStatus_Usage(t *testing.T) {
	code, _, errOut := runCLI(t, "", "job", "status", "a", "b")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "at most one argument")
}

func TestUnresolvedPlacementFailure(t *testing.T) {
	failed := func(id, status string) *api.Evaluation {
		return &api.Evaluation{ID: id, Status: status, FailedTGAllocs: map[string]*api.AllocationMetric{"g": {}}}
	}
	ok := func(id, status string) *api.Evaluation { return &api.Evaluation{ID: id, Status: status} }
	cases := []struct {
		name  string
		evals []*api.Evaluation // newest first
		want  string
	}{
		{"no evaluations", nil, ""},
		{"newest failed", []*api.Evaluation{failed("b", "complete"), ok("a", "complete")}, "b"},
		{"blocked waits for the failure", []*api.Evaluation{ok("c", "blocked"), failed("b", "complete")}, "b"},
		{"placed since", []*api.Evaluation{ok("c", "complete"), failed("b", "complete")}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := unresolvedPlacementFailure(tc.evals)
			if tc.want == "" {
				must.Nil(t, got)
				return
			}
			must.NotNil(t, got)
			must.Eq(t, tc.want, got.ID)
		})
	}
}

func TestAllocTable(t *testing.T) {
	now := time.Date(2026, 11, 29, 23, 40, 0, 0, time.UTC)
	ns := func(d time.Duration) int64 { return now.Add(d).UnixNano() }
	allocs := []*api.AllocationListStub{
		{ID: "aaaaaaaa-1", NodeID: "nnnnnnnn-1", TaskGroup: "g", DesiredStatus: "run", ClientStatus: "complete",
			CreateIndex: 5, CreateTime: ns(-time.Minute), ModifyTime: ns(-30 * time.Second), MaxRunDeadline: ns(-50 * time.Second),
			MaxRunExceeded: true},
		{ID: "bbbbbbbb-2", NodeID: "nnnnnnnn-1", TaskGroup: "g", JobVersion: 1, DesiredStatus: "run", ClientStatus: "running",
			CreateIndex: 9, CreateTime: ns(-3 * time.Second), ModifyTime: ns(-2 * time.Second), MaxRunDeadline: ns(7 * time.Second)},
	}
	want := "" +
		"ID        Node ID   Task Group  Version  Desired  Status                       Created  Modified  Deadline\n" +
		"bbbbbbbb  nnnnnnnn  g           1        run      running                      3s ago   2s ago    in 7s\n" +
		"aaaaaaaa  nnnnnnnn  g           0        run      complete (max_run_duration)  1m ago   30s ago   50s ago"
	must.Eq(t, want, allocTable(allocs, false, now))

	// Without a max_run_duration anywhere, there is no Deadline column.
	allocs[0].MaxRunDeadline, allocs[1].MaxRunDeadline = 0, 0
	must.StrNotContains(t, allocTable(allocs, false, now), "Deadline")
}

// TestJobStatus_PeriodicSkippedLaunch: a launch prohibit_overlap skipped
// shows in the parent's status, with its time, the child that still ran
// and the evaluation that records it.
func TestJobStatus_PeriodicSkippedLaunch(t *testing.T) {
	a, addr := testAgent(t)
	// No client runs the first child: it stays pending, and every later
	// launch is skipped.
	path := writeJob(t, "ticker", `periodic {
    crons            = ["* * * * * * *"]
    prohibit_overlap = true
  }`)
	code, _, errOut := runCLI(t, "", "job", "run", "-address", addr, path)
	must.Eq(t, 0, code, must.Sprint(errOut))

	skipped := regexp.MustCompile(`\nLast Skipped Launch  = \S+T\S+ \(\d+s ago\): (ticker/periodic-\d+) was still running and the job prohibits overlap \(evaluation [0-9a-f]{8}\)\n`)
	waitfor.True(t, "a skipped launch", func() bool {
		evals, err := a.Server().State().EvalsByJob(nil, structs.DefaultNamespace, "ticker")
		must.NoError(t, err)
		return len(evals) > 0
	})
	code, out, errOut := runCLI(t, "", "job", "status", "-address", addr, "ticker")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.RegexMatch(t, skipped, out)
	child := skipped.FindStringSubmatch(out)[1]
	must.RegexMatch(t, regexp.MustCompile(`\nPreviously Launched Jobs\nID +Status\n`+child+` +pending\n`), out)
}

// TestJobStatus_gcRows shows Drover's garbage collection settings only
// when a job sets them.
func TestJobStatus_gcRows(t *testing.T) {
	must.Len(t, 0, gcRows(&api.Job{Periodic: &api.PeriodicConfig{}}))
	ttl := 10 * time.Minute
	keep, overlap := 2, "replace"
	rows := gcRows(&api.Job{TTLAfterFinished: &ttl, Periodic: &api.PeriodicConfig{KeepLast: &keep, Overlap: &overlap}})
	must.Eq(t, []string{"Overlap|replace", "Keep Last|2 dead children", "TTL After Finished|10m0s"}, rows)
}
