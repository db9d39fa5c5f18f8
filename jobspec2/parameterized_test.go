package jobspec2

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestParse_Parameterized(t *testing.T) {
	job := mustParseString(t, `
job "encode" {
  type = "batch"
  parameterized {
    payload              = "required"
    meta_required        = ["dispatcher_email"]
    meta_optional        = ["pager_email"]
    max_run_duration_max = "1h"
  }
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/cat"
        args    = ["${NOMAD_TASK_DIR}/config.json", "${NOMAD_META_dispatcher_email}"]
      }
      dispatch_payload {
        file = "config.json"
      }
    }
  }
}
`)
	must.Eq(t, &api.ParameterizedJobConfig{
		Payload:           "required",
		MetaRequired:      []string{"dispatcher_email"},
		MetaOptional:      []string{"pager_email"},
		MaxRunDurationMax: ptr(time.Hour),
	}, job.ParameterizedJob)
	must.True(t, job.IsParameterized())
	task := job.TaskGroups[0].Tasks[0]
	must.Eq(t, &api.DispatchPayloadConfig{File: "config.json"}, task.DispatchPayload)
	// Runtime references survive for the client to fill.
	must.Eq[any](t, []any{"${NOMAD_TASK_DIR}/config.json", "${NOMAD_META_dispatcher_email}"}, task.Config["args"])
}

func TestParse_ParameterizedEmptyBlock(t *testing.T) {
	job := mustParseString(t, `
job "p" {
  parameterized {}
  group "g" {
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
    }
  }
}
`)
	must.Eq(t, &api.ParameterizedJobConfig{}, job.ParameterizedJob)
}

func TestParse_ParameterizedErrors(t *testing.T) {
	cases := map[string]struct{ src, want string }{
		"unknown argument": {`job "p" {
  parameterized { payloads = "required" }
}`, `Unsupported argument`},
		"two blocks": {`job "p" {
  parameterized {}
  parameterized {}
}`, `parameterized`},
		"payload of the wrong type": {`job "p" {
  parameterized { meta_required = "x" }
}`, `meta_required`},
		"dispatch_payload argument": {`job "p" {
  group "g" {
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
      dispatch_payload { path = "x" }
    }
  }
}`, `Unsupported argument`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := parseString(t, c.src)
			must.Error(t, err)
			must.StrContains(t, err.Error(), c.want)
		})
	}
}
