package jobspec2

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

// TestGCSettings reads ttl_after_finished, and a periodic block's overlap
// and keep_last; a bad duration names where it is.
func TestGCSettings(t *testing.T) {
	job := mustParseString(t, `
job "p" {
  type               = "batch"
  ttl_after_finished = "10m"
  periodic {
    crons     = ["*/10 * * * * * *"]
    overlap   = "replace"
    keep_last = 2
  }
  group "g" {
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
    }
  }
}`)
	must.Eq(t, dur(10*time.Minute), job.TTLAfterFinished)
	must.Eq(t, ptr("replace"), job.Periodic.Overlap)
	must.Eq(t, ptr(2), job.Periodic.KeepLast)

	_, err := parseString(t, `
job "p" {
  ttl_after_finished = "later"
  group "g" {
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
    }
  }
}`)
	must.ErrorContains(t, err, "job.hcl:3")
}
