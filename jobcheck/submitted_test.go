package jobcheck

import (
	"errors"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// rawExecJob is a canonical batch job of one raw_exec task with config.
func rawExecJob(config map[string]any) *structs.Job {
	job := &structs.Job{
		ID:          "j",
		Type:        structs.JobTypeBatch,
		Datacenters: []string{"dc1"},
		TaskGroups: []*structs.TaskGroup{{
			Name:  "g",
			Count: 2,
			Tasks: []*structs.Task{{Name: "t", Driver: "raw_exec", Config: config}},
		}},
	}
	job.Canonicalize()
	return job
}

func TestSubmitted_validJobPasses(t *testing.T) {
	must.NoError(t, Submitted(rawExecJob(map[string]any{"command": "/bin/true"}), structs.DefaultJobLimits()))
}

// TestSubmitted_listsEveryProblemAtOnce: the model's rules, the task
// config and the limits each add their problems to one error.
func TestSubmitted_listsEveryProblemAtOnce(t *testing.T) {
	job := rawExecJob(map[string]any{"comand": "/bin/true"})
	job.Datacenters = nil
	err := Submitted(job, structs.JobLimits{MaxCount: 1})

	var invalid *structs.ValidationError
	must.True(t, errors.As(err, &invalid), must.Sprint(err))
	msg := err.Error()
	must.StrContains(t, msg, "datacenters")
	must.StrContains(t, msg, `Task group "g" task "t": raw_exec config: unsupported config key "comand"`)
	must.StrContains(t, msg, `config key "command" is required`)
	must.StrContains(t, msg, "count")
	must.Greater(t, 3, len(invalid.Errors))
}

// TestSubmitted_zeroLimitsCheckNone: without a server's limits (`drover
// job validate`), a big job is judged on its own rules alone.
func TestSubmitted_zeroLimitsCheckNone(t *testing.T) {
	job := rawExecJob(map[string]any{"command": "/bin/true"})
	job.TaskGroups[0].Count = 1_000_000
	must.NoError(t, Submitted(job, structs.JobLimits{}))
	must.Error(t, Submitted(job, structs.DefaultJobLimits()))
}

// TestSubmitted_referencesAreTheClients: a value the client interpolates
// is not judged before it is.
func TestSubmitted_referencesAreTheClients(t *testing.T) {
	job := rawExecJob(map[string]any{"command": "${NOMAD_TASK_DIR}/run", "work_dir": "${NOMAD_ALLOC_DIR}"})
	must.NoError(t, Submitted(job, structs.DefaultJobLimits()))
}
