package command

import (
	"encoding/json"
	"testing"
	"time"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"
)

// The JSON "job run -output" prints must be what Nomad's official client
// would send, so it must decode into the official types with equal values.
func TestJobRunOutput_DecodesIntoNomadAPI(t *testing.T) {
	code, out, errOut := runCLI(t, "", "job", "run", "-output", "testdata/maxrun.hcl")
	must.Eq(t, 0, code, must.Sprint(errOut))

	var req nomadapi.JobRegisterRequest
	must.NoError(t, json.Unmarshal([]byte(out), &req))
	job := req.Job
	must.NotNil(t, job)
	must.Eq(t, "maxrun", *job.ID)
	must.Eq(t, "batch", *job.Type)
	must.Len(t, 1, job.TaskGroups)

	tg := job.TaskGroups[0]
	must.Eq(t, "maxrun", *tg.Name)
	must.NotNil(t, tg.MaxRunDuration)
	must.Eq(t, 10*time.Second, *tg.MaxRunDuration)
	must.Len(t, 2, tg.Tasks)
	must.Eq(t, "maxrun", tg.Tasks[0].Name)
	must.Eq(t, "raw_exec", tg.Tasks[0].Driver)
	must.Eq[any](t, "/bin/sleep", tg.Tasks[0].Config["command"])
	must.Eq[any](t, []any{"1000m"}, tg.Tasks[0].Config["args"])
	must.Eq(t, "maxrun2", tg.Tasks[1].Name)
	must.Eq[any](t, []any{"2s"}, tg.Tasks[1].Config["args"])
	must.Nil(t, tg.Tasks[0].Lifecycle)
}

func TestJobRunOutput_CarriesLifecycleAndCount(t *testing.T) {
	spec := `
job "life" {
  type = "batch"
  group "g" {
    count = 3
    task "setup" {
      driver = "raw_exec"
      lifecycle {
        hook    = "prestart"
        sidecar = false
      }
      config { command = "/bin/true" }
    }
    task "cleanup" {
      driver = "raw_exec"
      lifecycle { hook = "poststop" }
      config { command = "/bin/true" }
    }
    task "main" {
      driver = "raw_exec"
      config { command = "/bin/true" }
    }
  }
}
`
	code, out, errOut := runCLI(t, spec, "job", "run", "-output", "-")
	must.Eq(t, 0, code, must.Sprint(errOut))
	var req nomadapi.JobRegisterRequest
	must.NoError(t, json.Unmarshal([]byte(out), &req))
	tg := req.Job.TaskGroups[0]
	must.Eq(t, 3, *tg.Count)
	must.Eq(t, "prestart", tg.Tasks[0].Lifecycle.Hook)
	must.Eq(t, "poststop", tg.Tasks[1].Lifecycle.Hook)
	must.Nil(t, tg.Tasks[2].Lifecycle)
}

func TestJobRunOutput_Variables(t *testing.T) {
	spec := `
variable "duration" {
  type    = string
  default = "1m"
}
job "vars" {
  type = "batch"
  group "g" {
    max_run_duration = var.duration
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
    }
  }
}
`
	code, out, errOut := runCLI(t, spec, "job", "run", "-output", "-var", "duration=90s", "-")
	must.Eq(t, 0, code, must.Sprint(errOut))
	var req nomadapi.JobRegisterRequest
	must.NoError(t, json.Unmarshal([]byte(out), &req))
	must.Eq(t, 90*time.Second, *req.Job.TaskGroups[0].MaxRunDuration)
}
