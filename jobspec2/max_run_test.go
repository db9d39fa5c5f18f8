package jobspec2

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// TestParse_MaxRunExtensions parses Drover's additions around
// max_run_duration.
func TestParse_MaxRunExtensions(t *testing.T) {
	job := mustParseString(t, `job "train" {
  type = "batch"
  group "g" {
    max_run_duration = "1h"
    max_run_outcome  = "failed"
    task "train" {
      driver           = "raw_exec"
      max_run_duration = "45m"
      config { command = "/bin/sleep" }
      max_run_warning {
        signal = "SIGUSR1"
        before = "5m"
      }
    }
    task "other" {
      driver = "raw_exec"
      config { command = "/bin/sleep" }
    }
  }
}`)
	tg := job.TaskGroups[0]
	must.Eq(t, time.Hour, *tg.MaxRunDuration)
	must.Eq(t, "failed", *tg.MaxRunOutcome)
	must.Eq(t, 45*time.Minute, *tg.Tasks[0].MaxRunDuration)
	must.Eq(t, &api.MaxRunWarning{Signal: "SIGUSR1", Before: ptr(5 * time.Minute)}, tg.Tasks[0].MaxRunWarning)
	must.Nil(t, tg.Tasks[1].MaxRunDuration)
	must.Nil(t, tg.Tasks[1].MaxRunWarning)
}

func TestParse_MaxRunExtensionErrors(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want string
	}{
		{name: "task limit not a duration", src: `job "j" {
  group "g" {
    task "t" {
      max_run_duration = "soon"
    }
  }
}`, want: `job.hcl:4,26-32: Invalid duration; Attribute "max_run_duration" must be a duration`},
		{name: "warning lead time not a duration", src: `job "j" {
  group "g" {
    task "t" {
      max_run_warning {
        signal = "SIGUSR1"
        before = 5
      }
    }
  }
}`, want: `Attribute "before" must be a duration`},
		{name: "warning with an unknown argument", src: `job "j" {
  group "g" {
    task "t" {
      max_run_warning {
        signal = "SIGUSR1"
        after  = "5m"
      }
    }
  }
}`, want: `job.hcl:6,9-14: Unsupported argument`},
		{name: "two warnings", src: `job "j" {
  group "g" {
    task "t" {
      max_run_warning { signal = "SIGUSR1" }
      max_run_warning { signal = "SIGUSR2" }
    }
  }
}`, want: `job.hcl:5,7-22: Duplicate max_run_warning block`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseString(t, tc.src)
			must.ErrorContains(t, err, tc.want)
		})
	}
}
