package api

import (
	"reflect"
	"strings"
	"testing"

	nomad "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"
)

// TestWireNamesMatchNomad proves that every JSON field of the types this
// client adds exists, with the same name, in Nomad's own API module, so that
// a Nomad agent or client reads what Drover writes and the other way round.
func TestWireNamesMatchNomad(t *testing.T) {
	pairs := []struct {
		ours, theirs any
		// additions are fields Drover has and Nomad's module does not.
		additions []string
	}{
		{AgentSelf{}, nomad.AgentSelf{}, nil},
		{ServiceRegistration{}, nomad.ServiceRegistration{}, nil},
		{ServiceRegistrationListStub{}, nomad.ServiceRegistrationListStub{}, nil},
		{ServiceRegistrationStub{}, nomad.ServiceRegistrationStub{}, nil},
		{AgentMember{}, nomad.AgentMember{}, nil},
		{ServerMembers{}, nomad.ServerMembers{}, nil},
		// go-metrics' in-memory sink writes PrecisionGauges; Nomad's module
		// predates them and ignores them.
		{MetricsSummary{}, nomad.MetricsSummary{}, []string{"PrecisionGauges"}},
		{GaugeValue{}, nomad.GaugeValue{}, nil},
		{PointValue{}, nomad.PointValue{}, nil},
		{SampledValue{}, nomad.SampledValue{}, nil},
		{StreamFrame{}, nomad.StreamFrame{}, nil},
		{AllocFileInfo{}, nomad.AllocFileInfo{}, nil},
		{AllocStopResponse{}, nomad.AllocStopResponse{}, nil},
		{AllocationRestartRequest{}, nomad.AllocationRestartRequest{}, nil},
		{AllocSignalRequest{}, nomad.AllocSignalRequest{}, nil},
		{NodeUpdateEligibilityRequest{}, nomad.NodeUpdateEligibilityRequest{}, nil},
		{NodeEligibilityUpdateResponse{}, nomad.NodeEligibilityUpdateResponse{}, nil},
		{NodeUpdateDrainRequest{}, nomad.NodeUpdateDrainRequest{}, nil},
		{NodeDrainUpdateResponse{}, nomad.NodeDrainUpdateResponse{}, nil},
		{JobVersionsResponse{}, nomad.JobVersionsResponse{}, nil},
		{JobDiff{}, nomad.JobDiff{}, nil},
		{TaskGroupDiff{}, nomad.TaskGroupDiff{}, nil},
		{TaskDiff{}, nomad.TaskDiff{}, nil},
		{FieldDiff{}, nomad.FieldDiff{}, nil},
		{ObjectDiff{}, nomad.ObjectDiff{}, nil},
		{RegisterOptions{}, nomad.RegisterOptions{}, nil},
	}
	for _, p := range pairs {
		ours, theirs := reflect.TypeOf(p.ours), reflect.TypeOf(p.theirs)
		t.Run(ours.Name(), func(t *testing.T) {
			have := jsonNames(theirs)
			for _, name := range p.additions {
				have[name] = true
			}
			for name := range jsonNames(ours) {
				must.MapContainsKey(t, have, name, must.Sprintf("%s.%s is not in Nomad's %s", ours.Name(), name, theirs.Name()))
			}
		})
	}
}

// jsonNames returns the names encoding/json gives t's fields, with those of
// embedded structs promoted.
func jsonNames(t reflect.Type) map[string]bool {
	names := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			for n := range jsonNames(ft) {
				names[n] = true
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		names[name] = true
	}
	return names
}

func TestJSONNames(t *testing.T) {
	type inner struct{ A, B int }
	type outer struct {
		inner
		C int `json:"c"`
		D int `json:"-"`
		E int `json:",omitempty"`
	}
	must.Eq(t, map[string]bool{"A": true, "B": true, "c": true, "E": true}, jsonNames(reflect.TypeOf(outer{})))
}
