package jobcheck

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

func templateJob(tmpls ...*structs.Template) *structs.Job {
	job := rawExecJob(map[string]any{"command": "/bin/true"})
	job.TaskGroups[0].Tasks[0].Templates = tmpls
	job.Canonicalize()
	return job
}

// TestSubmitted_templateFunctions: a function that needs a Consul or
// Vault server is refused at submit, naming the function, the template
// and the agent block Drover lacks; every template is checked.
func TestSubmitted_templateFunctions(t *testing.T) {
	job := templateJob(
		&structs.Template{DestPath: "local/ok", EmbeddedTmpl: `{{ env "NOMAD_TASK_NAME" }}`},
		&structs.Template{DestPath: "local/kv", EmbeddedTmpl: `{{ key "app/config" }}`},
		&structs.Template{DestPath: "secrets/db", EmbeddedTmpl: `{{ with secret "db/creds" }}{{ .Data.password }}{{ end }}`},
		&structs.Template{DestPath: "local/custom", EmbeddedTmpl: `[[ service "x" ]] {{ key "not an action here" }}`, LeftDelim: "[[", RightDelim: "]]"},
		&structs.Template{DestPath: "local/bad", EmbeddedTmpl: `{{ env "x" `},
	)
	err := Submitted(job, structs.DefaultJobLimits())
	must.Error(t, err)
	msg := err.Error()
	must.StrContains(t, msg, `Task group "g" task "t" template #2 (local/kv): function "key" needs a Consul server, and Drover's agent has no "consul" block to name one`)
	must.StrContains(t, msg, `Task group "g" task "t" template #3 (secrets/db): function "secret" needs a Vault server, and Drover's agent has no "vault" block to name one`)
	must.StrContains(t, msg, `template #4 (local/custom): function "service" needs a Consul server`)
	must.StrContains(t, msg, `template #5 (local/bad): template: template:1: unclosed action`)
	must.StrNotContains(t, msg, "template #1")
}

func TestSubmitted_templateSourceIsTheClients(t *testing.T) {
	job := templateJob(&structs.Template{DestPath: "local/out", SourcePath: "local/in.tpl"})
	must.NoError(t, Submitted(job, structs.DefaultJobLimits()))
}
