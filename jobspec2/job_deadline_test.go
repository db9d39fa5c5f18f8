package jobspec2

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// TestParse_JobDeadlines parses the job-wide max_run_duration, the
// job's deadline (an instant, or a duration after each launch) and a
// group's min_run_duration.
func TestParse_JobDeadlines(t *testing.T) {
	job := mustParseString(t, `job "nightly" {
  type             = "batch"
  max_run_duration = "3h"
  deadline         = "2026-12-08T06:00:00+01:00"
  group "g" {
    max_run_duration = "1h"
    min_run_duration = "10m"
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
    }
  }
}`)
	must.Eq(t, 3*time.Hour, *job.MaxRunDuration)
	at := time.Date(2026, 12, 8, 5, 0, 0, 0, time.UTC)
	must.Eq(t, &api.JobDeadline{At: at.UnixNano()}, job.Deadline)
	must.Eq(t, 10*time.Minute, *job.TaskGroups[0].MinRunDuration)

	periodic := mustParseString(t, `job "p" {
  type     = "batch"
  deadline = "90m"
  periodic { crons = ["@hourly"] }
  group "g" {
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
    }
  }
}`)
	must.Eq(t, &api.JobDeadline{AfterLaunch: 90 * time.Minute}, periodic.Deadline)
	must.Nil(t, periodic.MaxRunDuration)
	must.Nil(t, periodic.TaskGroups[0].MinRunDuration)
}

func TestParse_JobDeadlineErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{name: "deadline neither instant nor duration", src: `job "j" {
  deadline = "tomorrow"
  group "g" { task "t" { driver = "raw_exec" } }
}`, want: `job.hcl:2,14-24: Invalid deadline; Attribute "deadline" must be an RFC 3339 instant`},
		{name: "job max_run_duration", src: `job "j" {
  max_run_duration = "long"
  group "g" { task "t" { driver = "raw_exec" } }
}`, want: `job.hcl:2,22-28: Invalid duration; Attribute "max_run_duration" must be a duration`},
		{name: "min_run_duration", src: `job "j" {
  group "g" {
    min_run_duration = 5
    task "t" { driver = "raw_exec" }
  }
}`, want: `Invalid duration; Attribute "min_run_duration" must be a duration such as "30s" or "1h30m": "5" is not one.`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseString(t, tc.src)
			must.ErrorContains(t, err, tc.want)
		})
	}
}
