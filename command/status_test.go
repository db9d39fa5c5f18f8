package command

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// `drover status` lists the jobs alone, and with an ID shows the job,
// allocation, node or evaluation it names with that kind's command.
func TestStatus(t *testing.T) {
	a, addr := testAgent(t)
	registerTestNode(t, a, testNodeID, "worker-1", structs.NodeSchedulingIneligible)
	evalID := runDetached(t, addr, writeJob(t, "status-job", ""))

	for _, tc := range []struct {
		arg  string
		cmd  []string
		want string
	}{
		{"", []string{"job", "status"}, "status-job"},
		{"status-job", []string{"job", "status", "status-job"}, "ID            = status-job"},
		{"status-", []string{"job", "status", "status-job"}, "ID            = status-job"},
		{evalID[:8], []string{"eval", "status", evalID[:8]}, evalID[:8]},
		{testNodeID[:6], []string{"node", "status", testNodeID[:6]}, "worker-1"},
	} {
		args := []string{"status", "-address", addr}
		if tc.arg != "" {
			args = append(args, tc.arg)
		}
		code, out, errOut := runCLI(t, "", args...)
		must.Eq(t, 0, code, must.Sprint(tc.arg, errOut))
		must.StrContains(t, out, tc.want)
		wantCode, wantOut, _ := runCLI(t, "", append(tc.cmd[:2:2], append([]string{"-address", addr}, tc.cmd[2:]...)...)...)
		must.Eq(t, wantCode, code)
		must.Eq(t, wantOut, out, must.Sprintf("drover status %s is not drover %v", tc.arg, tc.cmd))
	}

	code, out, errOut := runCLI(t, "", "status", "-address", addr, "nothing-here")
	must.Eq(t, exitError, code)
	must.Eq(t, "", out)
	must.Eq(t, "No job, allocation, node or evaluation with ID or prefix \"nothing-here\" found\n", errOut)
}

// A prefix that objects of several kinds share lists them.
func TestStatus_ambiguousPrefix(t *testing.T) {
	a, addr := testAgent(t)
	registerTestNode(t, a, testNodeID, "worker-1", structs.NodeSchedulingIneligible)
	runDetached(t, addr, writeJob(t, "f5a9", ""))
	code, out, errOut := runCLI(t, "", "status", "-address", addr, "f5a")
	must.Eq(t, exitError, code)
	must.Eq(t, "", out)
	must.Eq(t, "Prefix \"f5a\" matches more than one kind of object:\n"+
		"  jobs: f5a9 (drover job status <id>)\n"+
		"  nodes: "+testNodeID+" (drover node status <id>)\n", errOut)

	// An exact job ID wins.
	code, out, errOut = runCLI(t, "", "status", "-address", addr, "f5a9")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, "ID            = f5a9\n")
}
