package structs

import (
	"testing"

	"github.com/shoenig/test/must"
)

// The defaults Canonicalize fills into a job as submitted are tested with
// wire jobs, through the conversion, in command/agent/convert
// (canonicalize_test.go).

func TestCanonicalize_nilSafe(t *testing.T) {
	var nilJob *Job
	nilJob.Canonicalize()

	j := &Job{ID: "j", TaskGroups: []*TaskGroup{nil, {Name: "g", Tasks: []*Task{nil}}}}
	j.Canonicalize()
	must.Nil(t, j.TaskGroups[0])
	must.Nil(t, j.TaskGroups[1].Tasks[0])
}
