package jobspec2

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func TestParse_update(t *testing.T) {
	job, err := parseString(t, `job "web" {
  update {
    max_parallel      = 2
    health_check      = "task_states"
    min_healthy_time  = "5s"
    healthy_deadline  = "1m"
    progress_deadline = "2m"
    auto_revert       = true
    auto_promote      = false
    canary            = 0
    stagger           = "10s"
  }
  group "g" {
    update {
      max_parallel = 1
    }
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
    }
  }
}`)
	must.NoError(t, err)
	u := job.Update
	must.Eq(t, 2, *u.MaxParallel)
	must.Eq(t, "task_states", *u.HealthCheck)
	must.Eq(t, 5*time.Second, *u.MinHealthyTime)
	must.Eq(t, time.Minute, *u.HealthyDeadline)
	must.Eq(t, 2*time.Minute, *u.ProgressDeadline)
	must.True(t, *u.AutoRevert)
	must.False(t, *u.AutoPromote)
	must.Eq(t, 0, *u.Canary)
	must.Eq(t, 10*time.Second, *u.Stagger)
	g := job.TaskGroups[0].Update
	must.Eq(t, 1, *g.MaxParallel)
	must.Nil(t, g.HealthCheck, must.Sprint("what the group leaves out is merged from the job's on the server"))
}
