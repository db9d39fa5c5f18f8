package command

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/structs"
)

func TestEvalStatus_OneAndList(t *testing.T) {
	a, addr := testAgent(t)
	code, out, _ := runCLI(t, "", "eval", "status", "-address", addr)
	must.Eq(t, 0, code)
	must.Eq(t, "No evaluations found\n", out)

	evalID := runDetached(t, addr, "testdata/maxrun.hcl")

	code, out, errOut := runCLI(t, "", "eval", "status", "-address", addr, evalID[:6])
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrHasPrefix(t, "ID                 = "+evalID[:8]+"\nCreate Time        = ", out)
	must.StrContains(t, out, "\nType               = batch\nTriggeredBy        = job-register\n"+
		"Job ID             = maxrun\nNamespace          = default\nPriority           = 50\n")
	// Whether it placed anything depends on the scheduler, not the CLI.
	must.RegexMatch(t, regexp.MustCompile(`\nPlacement Failures = (true|false)\n`), out+"\n")
	must.StrNotContains(t, out, "Placed Allocations")

	code, out, _ = runCLI(t, "", "eval", "status", "-address", addr, "-json", evalID)
	must.Eq(t, 0, code)
	var eval nomadapi.Evaluation
	must.NoError(t, json.Unmarshal([]byte(out), &eval))
	must.Eq(t, evalID, eval.ID)
	must.Eq(t, "maxrun", eval.JobID)

	code, out, _ = runCLI(t, "", "eval", "status", "-address", addr)
	must.Eq(t, 0, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	must.Eq(t, []string{"ID", "Priority", "Triggered", "By", "Job", "ID", "Namespace", "Node", "ID", "Status", "Placement", "Failures"},
		strings.Fields(lines[0]))
	// A scheduler may have added evaluations (a blocked one); ours is
	// listed all the same.
	i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, evalID[:8]+" ") })
	must.Positive(t, i, must.Sprint(out))
	must.Eq(t, []string{evalID[:8], "50", "job-register", "maxrun", "default", "<none>"}, strings.Fields(lines[i])[:6])

	registerTestNode(t, a, testNodeID, "worker-1", structs.NodeSchedulingIneligible)
	placeTestAlloc(t, a, testAllocID, "maxrun", evalID, testNodeID)
	code, out, _ = runCLI(t, "", "eval", "status", "-address", addr, evalID)
	must.Eq(t, 0, code)
	must.StrContains(t, out, "\nPlaced Allocations\nID ")
	must.StrContains(t, out, "\n0a1b2c3d  f5a9b8c7  maxrun")

	code, _, errOut = runCLI(t, "", "eval", "status", "-address", addr, "abcdef")
	must.Eq(t, 1, code)
	must.Eq(t, "No evaluation(s) with prefix or id \"abcdef\" found\n", errOut)
}

func TestEvalStatus_ShowsFailedPlacements(t *testing.T) {
	now := time.Date(2026, 11, 29, 23, 40, 0, 0, time.UTC)
	eval := &api.Evaluation{
		ID: evalID1, Status: "complete", Type: "batch", TriggeredBy: "job-register", JobID: "maxrun",
		Namespace: "default", Priority: 50, BlockedEval: evalID2,
		CreateTime: now.Add(-5 * time.Second).UnixNano(), ModifyTime: now.Add(-4 * time.Second).UnixNano(),
		FailedTGAllocs: map[string]*api.AllocationMetric{"maxrun": {NodesEvaluated: 0}},
	}
	c := &EvalStatusCommand{Meta: Meta{Ui: newTestUi()}}
	c.show(eval, nil, false, now)
	want := `ID                 = 1a2b3c4d
Create Time        = 5s ago
Modify Time        = 4s ago
Status             = complete
Status Description = <none>
Type               = batch
TriggeredBy        = job-register
Job ID             = maxrun
Namespace          = default
Priority           = 50
Placement Failures = true

Failed Placements
Task Group "maxrun" (failed to place 1 allocation):
  * No nodes were eligible for evaluation

Evaluation "2b3c4d5e" waiting for additional capacity to place remainder
`
	must.Eq(t, want, uiOutput(c.Ui))
}
