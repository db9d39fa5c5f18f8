package command

import (
	"encoding/json"
	"testing"
	"time"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"
)

func TestJobInspect_PrintsJobJSON(t *testing.T) {
	_, addr := testAgent(t)
	runDetached(t, addr, "testdata/maxrun.hcl")

	code, out, errOut := runCLI(t, "", "job", "inspect", "-address", addr, "maxr")
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrHasPrefix(t, "{\n    \"Job\": {\n", out)
	var got struct{ Job *nomadapi.Job }
	must.NoError(t, json.Unmarshal([]byte(out), &got))
	must.Eq(t, "maxrun", *got.Job.ID)
	must.Eq(t, "batch", *got.Job.Type)
	must.Eq(t, 10*time.Second, *got.Job.TaskGroups[0].MaxRunDuration)
	must.Len(t, 2, got.Job.TaskGroups[0].Tasks)
}

func TestJobInspect_Version(t *testing.T) {
	_, addr := testAgent(t)
	runDetached(t, addr, "testdata/maxrun.hcl")
	runDetached(t, addr, writeJob(t, "maxrun", `priority = 70`))

	code, out, errOut := runCLI(t, "", "job", "inspect", "-address", addr, "-version", "0", "maxrun")
	must.Eq(t, 0, code, must.Sprint(errOut))
	var got struct{ Job *nomadapi.Job }
	must.NoError(t, json.Unmarshal([]byte(out), &got))
	must.Eq(t, 0, *got.Job.Version)
	must.Eq(t, 50, *got.Job.Priority)

	code, out, _ = runCLI(t, "", "job", "inspect", "-address", addr, "maxrun")
	must.Eq(t, 0, code)
	must.NoError(t, json.Unmarshal([]byte(out), &got))
	must.Eq(t, 1, *got.Job.Version)
	must.Eq(t, 70, *got.Job.Priority)

	code, _, errOut = runCLI(t, "", "job", "inspect", "-address", addr, "-version", "7", "maxrun")
	must.Eq(t, 1, code)
	must.Eq(t, "Job \"maxrun\" has no version 7\n", errOut)

	code, _, errOut = runCLI(t, "", "job", "inspect", "-address", addr, "-version", "-1", "maxrun")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, `-version must be a non-negative integer, not "-1"`)
}
