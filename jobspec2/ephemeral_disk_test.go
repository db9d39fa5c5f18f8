package jobspec2

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestParse_EphemeralDisk(t *testing.T) {
	job, err := parseString(t, `job "j" {
  group "sized" {
    ephemeral_disk {
      size = 500
    }
    task "t" {
      driver = "raw_exec"
    }
  }
  group "default" {
    ephemeral_disk {}
    task "t" {
      driver = "raw_exec"
    }
  }
  group "none" {
    task "t" {
      driver = "raw_exec"
    }
  }
}
`)
	must.NoError(t, err)
	must.Eq(t, 500, *job.TaskGroups[0].EphemeralDisk.SizeMB)
	must.NotNil(t, job.TaskGroups[1].EphemeralDisk)
	must.Nil(t, job.TaskGroups[1].EphemeralDisk.SizeMB, must.Sprint("the server gives a block without a size Nomad's default"))
	must.Nil(t, job.TaskGroups[2].EphemeralDisk)

	_, err = parseString(t, `job "j" {
  group "g" {
    ephemeral_disk {
      size = "big"
    }
    task "t" {
      driver = "raw_exec"
    }
  }
}
`)
	must.ErrorContains(t, err, "job.hcl:4,14-19")
}
