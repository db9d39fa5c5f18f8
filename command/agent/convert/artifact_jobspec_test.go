package convert

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/jobspec2"
	"github.com/drover-io/drover/structs"
)

// Every key of Nomad's artifact block parses, and go-getter's sources,
// options and Nomad's destinations pass the server's validation, as a
// jobspec reaches it.
func TestArtifactJobspec_NomadKeysValidate(t *testing.T) {
	src := `
job "fetch" {
  type = "batch"
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/true"
      }
      artifact {
        source      = "git::https://git.example.com/org/repo.git?ref=v1"
        destination = "local/repo"
        mode        = "dir"
        options {
          depth = "1"
        }
      }
      artifact {
        source      = "github.com/hashicorp/nomad//e2e/terraform"
        destination = "${NOMAD_ALLOC_DIR}/nomad"
      }
      artifact {
        source      = "https://releases.example.com/tool_1.0_linux_amd64.zip"
        destination = "/local/bin"
        chown       = true
        insecure    = false
        options {
          checksum = "sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"
          archive  = "zip"
        }
        headers {
          Authorization = "Bearer ${NOMAD_META_token}"
        }
      }
      artifact {
        source      = "https://example.com/config.json"
        destination = "${NOMAD_TASK_DIR}/config.json"
        mode        = "file"
      }
      artifact {
        source = "s3::https://s3.amazonaws.com/bucket/app.tgz"
        options {
          aws_access_key_id     = "AKIA"
          aws_access_key_secret = "secret"
        }
      }
      artifact {
        source = "git@github.com:org/private.git"
        options {
          sshkey = "a2V5"
          ref    = "main"
        }
      }
    }
  }
}`
	apiJob, err := jobspec2.ParseWithConfig(&jobspec2.ParseConfig{Path: "fetch.nomad.hcl", Body: []byte(src)})
	must.NoError(t, err)
	job := JobFromAPI(apiJob)
	job.Canonicalize()
	must.NoError(t, job.Validate())

	arts := job.TaskGroups[0].Tasks[0].Artifacts
	must.Len(t, 6, arts)
	must.Eq(t, structs.TaskArtifact{
		GetterSource:  "https://releases.example.com/tool_1.0_linux_amd64.zip",
		GetterOptions: map[string]string{"checksum": "sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae", "archive": "zip"},
		GetterHeaders: map[string]string{"Authorization": "Bearer ${NOMAD_META_token}"},
		GetterMode:    structs.ArtifactModeAny,
		RelativeDest:  "/local/bin",
		Chown:         true,
	}, *arts[2])
	must.Eq(t, "local/repo", arts[0].RelativeDest)
	must.Eq(t, map[string]string{"depth": "1"}, arts[0].GetterOptions)
}

// What the client cannot fetch is refused at submit, naming the task,
// the artifact and why.
func TestArtifactJobspec_Refused(t *testing.T) {
	src := `
job "fetch" {
  type = "batch"
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/true"
      }
      artifact {
        source = "hg::https://hg.example.com/repo"
      }
      artifact {
        source      = "https://example.com/f"
        destination = "${NOMAD_ALLOC_DIR}/../../etc"
      }
    }
  }
}`
	apiJob, err := jobspec2.ParseWithConfig(&jobspec2.ParseConfig{Path: "fetch.nomad.hcl", Body: []byte(src)})
	must.NoError(t, err)
	job := JobFromAPI(apiJob)
	job.Canonicalize()
	err = job.Validate()
	must.ErrorContains(t, err, `artifact #1: source "hg::https://hg.example.com/repo": getter "hg::" is not supported`)
	must.ErrorContains(t, err, `artifact #2: destination "${NOMAD_ALLOC_DIR}/../../etc" escapes the allocation directory`)
}
