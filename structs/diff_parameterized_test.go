package structs

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestDiff_parameterized(t *testing.T) {
	old := diffJob()
	old.ParameterizedJob = &ParameterizedJobConfig{Payload: DispatchPayloadOptional, MetaRequired: []string{"a"}}
	next := old.Copy()
	next.ParameterizedJob.Payload = DispatchPayloadRequired
	next.ParameterizedJob.MetaOptional = []string{"b"}
	next.TaskGroups[0].Tasks[0].DispatchPayload = &DispatchPayloadConfig{File: "in.json"}

	d := mustDiff(t, old, next, false)
	must.Eq(t, DiffTypeEdited, d.Type)
	must.Len(t, 1, d.Objects)
	must.Eq(t, &ObjectDiff{Type: DiffTypeEdited, Name: "ParameterizedJob", Fields: []*FieldDiff{
		{Type: DiffTypeAdded, Name: "MetaOptional[0]", New: "b"},
		{Type: DiffTypeEdited, Name: "Payload", Old: "optional", New: "required"},
	}}, d.Objects[0])
	task := d.TaskGroups[0].Tasks[0]
	must.Eq(t, []*FieldDiff{{Type: DiffTypeAdded, Name: "DispatchPayload.File", New: "in.json"}}, task.Fields)

	// The block added whole.
	plain := diffJob()
	d = mustDiff(t, plain, old, false)
	must.Eq(t, DiffTypeAdded, d.Objects[0].Type)
	must.Eq(t, "ParameterizedJob", d.Objects[0].Name)
}
