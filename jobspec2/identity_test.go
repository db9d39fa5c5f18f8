package jobspec2

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func identityJobspec(block string) string {
	return `job "j" {
  group "g" {
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
      ` + block + `
    }
  }
}`
}

func TestParse_Identity(t *testing.T) {
	job := mustParseString(t, identityJobspec(`identity {
        env  = true
        file = true
        aud  = ["nomad.io", "example.com"]
        ttl  = "1h"
      }`))
	must.Eq(t, &api.WorkloadIdentity{Env: true, File: true, Audience: []string{"nomad.io", "example.com"}, TTL: time.Hour},
		job.TaskGroups[0].Tasks[0].Identity)

	job = mustParseString(t, identityJobspec(`identity { name = "default" }`))
	must.Eq(t, &api.WorkloadIdentity{Name: "default"}, job.TaskGroups[0].Tasks[0].Identity)

	job = mustParseString(t, identityJobspec(""))
	must.Nil(t, job.TaskGroups[0].Tasks[0].Identity)
}

func TestParse_IdentityRefusals(t *testing.T) {
	for block, want := range map[string]string{
		`identity { name = "vault_default" }`:                `Drover signs the default identity only (an identity block without a name, or named "default"), not "vault_default"`,
		`identity { change_mode = "restart" }`:               `"change_mode" is a Nomad argument that Drover does not support yet`,
		`identity { extra_claims = ["x"] }`:                  `"extra_claims" is a Nomad argument that Drover does not support yet`,
		"identity { env = true }\n identity { file = true }": "Only one identity block is allowed here",
	} {
		_, err := parseString(t, identityJobspec(block))
		must.ErrorContains(t, err, want, must.Sprint(block))
	}
}
