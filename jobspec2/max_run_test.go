package jobspec2

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

// TestParse_MaxRunExtensions parses Drover's additions around
// max_run_duration.
func TestParse_MaxRunExtensions(t *testing.T) {
	job := mustParseString(t, `job "train" {
  type = "batch"
  group "g" {
    max_run_duration = "1h"
    task "train" {
      driver           = "raw_exec"
      max_run_duration = "45m"
      config { command = "/bin/sleep" }
    }
    task "other" {
      driver = "raw_exec"
      config { command = "/bin/sleep" }
    }
  }
}`)
	tg := job.TaskGroups[0]
	must.Eq(t, time.Hour, *tg.MaxRunDuration)
	must.Eq(t, 45*time.Minute, *tg.Tasks[0].MaxRunDuration)
	must.Nil(t, tg.Tasks[1].MaxRunDuration)
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
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseString(t, tc.src)
			must.ErrorContains(t, err, tc.want)
		})
	}
}
