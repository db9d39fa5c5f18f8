package jobspec2

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

// TestParse_WaitLimits parses max_pending_duration and max_run_extension
// on the job and on a group.
func TestParse_WaitLimits(t *testing.T) {
	job := mustParseString(t, `job "train" {
  type                 = "batch"
  max_pending_duration = "10m"
  max_run_extension    = "1h"
  group "g" {
    max_run_duration     = "1h"
    max_pending_duration = "2s"
    max_run_extension    = "30m"
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/sleep" }
    }
  }
  group "h" {
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/sleep" }
    }
  }
}`)
	must.Eq(t, 10*time.Minute, *job.MaxPendingDuration)
	must.Eq(t, time.Hour, *job.MaxRunExtension)
	must.Eq(t, 2*time.Second, *job.TaskGroups[0].MaxPendingDuration)
	must.Eq(t, 30*time.Minute, *job.TaskGroups[0].MaxRunExtension)
	must.Nil(t, job.TaskGroups[1].MaxPendingDuration, must.Sprint("the server fills the job's default in"))

	_, err := parseString(t, `job "j" {
  group "g" {
    max_pending_duration = "a while"
  }
}`)
	must.ErrorContains(t, err, `job.hcl:3,28-37: Invalid duration; Attribute "max_pending_duration" must be a duration`)
}
