package structs

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func TestDiff_serviceChange(t *testing.T) {
	old := diffJob()
	old.TaskGroups[0].Services = []*Service{{Name: "web", PortLabel: "http", Tags: []string{"v1"},
		Checks: []ServiceCheck{{Type: "tcp", Interval: time.Second, Timeout: time.Second}}}}
	next := old.Copy()
	next.TaskGroups[0].Services[0].Tags = []string{"v2"}
	next.TaskGroups[0].Services[0].Checks[0].Interval = 5 * time.Second

	d := mustDiff(t, old, next, false)
	must.Eq(t, []*FieldDiff{
		{Type: DiffTypeEdited, Name: "Service[web].Check[0].Interval", Old: "1000000000", New: "5000000000"},
		{Type: DiffTypeEdited, Name: "Service[web].Tags", Old: "v1", New: "v2"},
	}, d.TaskGroups[0].Fields)

	next.TaskGroups[0].Tasks[0].Services = []*Service{{Name: "inner", Tags: []string{"x"}}}
	d = mustDiff(t, old, next, false)
	var added []string
	for _, f := range d.TaskGroups[0].Tasks[0].Fields {
		if f.Type == DiffTypeAdded {
			added = append(added, f.Name+"="+f.New)
		}
	}
	must.SliceContains(t, added, "Service[inner].Tags=x")
}
