package api

import (
	"reflect"
	"testing"
	"time"

	nomad "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"
)

func TestJobs_Plan(t *testing.T) {
	job := &Job{
		ID:         ptr("maxrun"),
		Type:       ptr(JobTypeBatch),
		TaskGroups: []*TaskGroup{{Name: ptr("maxrun"), MaxRunDuration: ptr(30 * time.Second)}},
	}
	runEndpointCases(t, []endpointCase{{
		name: "Plan",
		reply: reply{
			body: `{"JobModifyIndex":12,"Index":14,
				"Annotations":{"DesiredTGUpdates":{"maxrun":{"InPlaceUpdate":1}}},
				"Diff":{"Type":"Edited","ID":"maxrun","TaskGroups":[{"Type":"Edited","Name":"maxrun",
					"Fields":[{"Type":"Edited","Name":"MaxRunDuration","Old":"10000000000","New":"30000000000"}],
					"Updates":{"in-place update":1}}]},
				"FailedTGAllocs":{"other":{"NodesEvaluated":2,"NodesExhausted":2}},
				"CreatedEvals":[{"ID":"e1","Status":"blocked"}],
				"NextPeriodicLaunch":"0001-01-01T00:00:00Z","Warnings":"field X is not supported"}`,
			headers: map[string]string{"X-Nomad-Index": "14"},
		},
		call: func(t *testing.T, c *Client) {
			resp, wm, err := c.Jobs().Plan(job, true, nil)
			must.NoError(t, err)
			must.Eq(t, uint64(12), resp.JobModifyIndex)
			must.Eq(t, uint64(14), wm.LastIndex)
			must.Eq(t, &DesiredUpdates{InPlaceUpdate: 1}, resp.Annotations.DesiredTGUpdates["maxrun"])
			tg := resp.Diff.TaskGroups[0]
			must.Eq(t, "MaxRunDuration", tg.Fields[0].Name)
			must.Eq(t, "30000000000", tg.Fields[0].New)
			must.Eq(t, map[string]uint64{"in-place update": 1}, tg.Updates)
			must.Eq(t, 2, resp.FailedTGAllocs["other"].NodesExhausted)
			must.Eq(t, "blocked", resp.CreatedEvals[0].Status)
			must.True(t, resp.NextPeriodicLaunch.IsZero())
			must.Eq(t, "field X is not supported", resp.Warnings)
		},
		want: wantRequest{
			method: "PUT", path: "/v1/job/maxrun/plan",
			body: `{"Job":{"ID":"maxrun","Type":"batch","TaskGroups":[{"Name":"maxrun","MaxRunDuration":30000000000}]},"Diff":true}`,
		},
	}})
}

func TestJobs_PlanEscapesIDAndRefusesNoJob(t *testing.T) {
	runEndpointCases(t, []endpointCase{{
		name:  "escaped",
		reply: reply{body: `{}`},
		call: func(t *testing.T, c *Client) {
			_, _, err := c.Jobs().Plan(&Job{ID: ptr("a/b")}, false, nil)
			must.NoError(t, err)
		},
		want: wantRequest{method: "PUT", path: "/v1/job/a%2Fb/plan", body: `{"Job":{"ID":"a/b"},"Diff":false}`},
	}})

	c := newTestClient(t, "http://127.0.0.1:1")
	_, _, err := c.Jobs().Plan(nil, true, nil)
	must.ErrorIs(t, err, errNilJob)
	_, _, err = c.Jobs().Plan(&Job{}, true, nil)
	must.ErrorContains(t, err, "no ID")
}

func TestJobPlanWireNamesMatchNomad(t *testing.T) {
	pairs := []struct {
		ours, theirs reflect.Type
	}{
		{reflect.TypeFor[JobPlanRequest](), reflect.TypeFor[nomad.JobPlanRequest]()},
		{reflect.TypeFor[JobPlanResponse](), reflect.TypeFor[nomad.JobPlanResponse]()},
		{reflect.TypeFor[PlanAnnotations](), reflect.TypeFor[nomad.PlanAnnotations]()},
		{reflect.TypeFor[DesiredUpdates](), reflect.TypeFor[nomad.DesiredUpdates]()},
	}
	for _, p := range pairs {
		t.Run(p.ours.Name(), func(t *testing.T) {
			have := jsonNames(p.theirs)
			for name := range jsonNames(p.ours) {
				must.MapContainsKey(t, have, name, must.Sprintf("%s.%s is not in Nomad's %s", p.ours.Name(), name, p.theirs.Name()))
			}
		})
	}
}
