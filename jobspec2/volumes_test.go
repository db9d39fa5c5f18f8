package jobspec2

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestVolumes_Parse(t *testing.T) {
	job := mustParseString(t, `job "j" {
  group "g" {
    count = 2
    volume "data" {
      type            = "host"
      source          = "input"
      read_only       = true
      per_alloc       = true
      access_mode     = "single-node-reader-only"
      attachment_mode = "file-system"
    }
    task "t" {
      driver = "docker"
      volume_mount {
        volume           = "data"
        destination      = "/srv/data"
        read_only        = true
        propagation_mode = "host-to-task"
      }
    }
  }
}`)
	tg := job.TaskGroups[0]
	must.Eq(t, map[string]*api.VolumeRequest{"data": {
		Name: "data", Type: "host", Source: "input", ReadOnly: true, PerAlloc: true,
		AccessMode: "single-node-reader-only", AttachmentMode: "file-system",
	}}, tg.Volumes)
	must.Eq(t, []*api.VolumeMount{{
		Volume: ptr("data"), Destination: ptr("/srv/data"), ReadOnly: ptr(true), PropagationMode: ptr("host-to-task"),
	}}, tg.Tasks[0].VolumeMounts)
}

func TestVolumes_ParseErrors(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`volume "a" {
      source = "a"
    }
    volume "a" {
      source = "b"
    }`, `job.hcl:6,5-15: Duplicate volume; Volume "a" was already defined at job.hcl:3,5-15.`},
		{`volume "a" {
      readonly = true
    }`, `job.hcl:4,7-15: Unsupported argument`},
		{`volume "a" {
      read_only = "maybe"
    }`, `job.hcl:4,19-26: `},
		{`task "t" {
      volume_mount {
        volume = ["a"]
      }
    }`, `job.hcl:5,18-23: `},
	} {
		_, err := parseString(t, "job \"j\" {\n  group \"g\" {\n    "+tc.body+"\n  }\n}")
		must.ErrorContains(t, err, tc.want)
	}
}
