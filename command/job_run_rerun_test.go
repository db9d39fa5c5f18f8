package command

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// TestJobRun_UnchangedFinishedJobSaysNothingStarts: running a finished
// batch job again, unchanged, starts nothing, and the CLI says so and why.
func TestJobRun_UnchangedFinishedJobSaysNothingStarts(t *testing.T) {
	a, addr := allocTestAgent(t)
	path := filepath.Join(t.TempDir(), "quick.hcl")
	must.NoError(t, os.WriteFile(path, []byte(`job "quick" {
  type = "batch"
  group "g" {
    task "t" {
      driver = "mock_driver"
      config {
        run_for = "10ms"
      }
    }
  }
}
`), 0o644))
	code, out, errOut := runCLI(t, "", "job", "run", "-address", addr, path)
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrNotContains(t, out, "unchanged")
	waitfor.True(t, "the job to finish", func() bool {
		job, err := a.Server().State().JobByID(nil, structs.DefaultNamespace, "quick")
		must.NoError(t, err)
		return job.Status == structs.JobStatusDead
	})

	code, out, errOut = runCLI(t, "", "job", "run", "-address", addr, "-detach", path)
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, "Job Warnings:\n"+
		`* Job "quick" is unchanged and has finished: nothing will be started, as the scheduler does not run a finished batch job's allocations again. `+
		`To run it again, change the job, or purge it first with "drover job stop -purge quick".`+"\n")
}
