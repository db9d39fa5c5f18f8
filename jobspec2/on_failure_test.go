package jobspec2

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestParse_OnFailure(t *testing.T) {
	job := mustParseString(t, `job "train" {
  type             = "batch"
  max_run_duration = "2h"
  group "g" {
    max_run_duration = "30m"
    on_failure {
      rule {
        exit_codes = [3, 4]
        action     = "fail_job"
      }
      rule {
        reasons = ["timeout"]
        action  = "requeue"
      }
      rule {
        signals = ["SIGKILL"]
        reasons = ["oom"]
        action  = "ignore"
      }
    }
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
    }
  }
}`)
	must.Eq(t, []*api.OnFailureRule{
		{ExitCodes: []int{3, 4}, Action: "fail_job"},
		{Reasons: []string{"timeout"}, Action: "requeue"},
		{Signals: []string{"SIGKILL"}, Reasons: []string{"oom"}, Action: "ignore"},
	}, job.TaskGroups[0].OnFailure)
}

func TestParse_OnFailureErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"exit code not a number", `job "j" {
  group "g" {
    on_failure {
      rule {
        exit_codes = ["three"]
        action     = "retry"
      }
    }
  }
}`, `Inappropriate value for attribute "exit_codes"`},
		{"exit code not whole", `job "j" {
  group "g" {
    on_failure {
      rule {
        exit_codes = [1.5]
        action     = "retry"
      }
    }
  }
}`, `Element 0 of attribute "exit_codes" must be a whole number`},
		{"unknown argument", `job "j" {
  group "g" {
    on_failure {
      rule {
        exit_code = 3
      }
    }
  }
}`, `job.hcl:5,9-18: Unsupported argument`},
		{"two blocks", `job "j" {
  group "g" {
    on_failure {}
    on_failure {}
  }
}`, `Duplicate on_failure block`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseString(t, tc.src)
			must.ErrorContains(t, err, tc.want)
		})
	}
}
