package structs

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestDiff_networkPortChange(t *testing.T) {
	old := diffJob()
	old.TaskGroups[0].Networks = []*NetworkResource{{DynamicPorts: []Port{{Label: "http"}}}}
	next := old.Copy()
	next.TaskGroups[0].Networks[0].DynamicPorts = nil
	next.TaskGroups[0].Networks[0].ReservedPorts = []Port{{Label: "http", Value: 8080}}

	d := mustDiff(t, old, next, false)
	tg := d.TaskGroups[0]
	must.Eq(t, DiffTypeEdited, tg.Type)
	must.Eq(t, []*FieldDiff{{Type: DiffTypeEdited, Name: "Network.Port[http].Static", Old: "", New: "8080"}}, tg.Fields)
}
