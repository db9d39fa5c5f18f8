package api

import (
	"net/url"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func TestJobs_Endpoints(t *testing.T) {
	job := &Job{
		ID:   ptr("maxrun"),
		Type: ptr(JobTypeBatch),
		TaskGroups: []*TaskGroup{{
			Name:           ptr("maxrun"),
			MaxRunDuration: ptr(10 * time.Second),
		}},
	}
	runEndpointCases(t, []endpointCase{
		{
			name: "Register",
			reply: reply{
				body:    `{"EvalID":"e1","EvalCreateIndex":12,"JobModifyIndex":12,"Warnings":"field X is not supported"}`,
				headers: map[string]string{"X-Nomad-Index": "12"},
			},
			call: func(t *testing.T, c *Client) {
				resp, wm, err := c.Jobs().Register(job, nil)
				must.NoError(t, err)
				must.Eq(t, "e1", resp.EvalID)
				must.Eq(t, uint64(12), resp.JobModifyIndex)
				must.Eq(t, "field X is not supported", resp.Warnings)
				must.Eq(t, uint64(12), wm.LastIndex)
			},
			want: wantRequest{
				method: "PUT", path: "/v1/jobs",
				body: `{"Job":{"ID":"maxrun","Type":"batch","TaskGroups":[{"Name":"maxrun","MaxRunDuration":10000000000}]}}`,
			},
		},
		{
			name:  "RegisterOpts",
			reply: reply{body: `{"EvalID":"e2"}`},
			call: func(t *testing.T, c *Client) {
				opts := &RegisterOptions{EnforceIndex: true, ModifyIndex: 7, PolicyOverride: true, PreserveCounts: true, EvalPriority: 80}
				resp, _, err := c.Jobs().RegisterOpts(job, opts, nil)
				must.NoError(t, err)
				must.Eq(t, "e2", resp.EvalID)
			},
			want: wantRequest{
				method: "PUT", path: "/v1/jobs",
				body: `{"Job":{"ID":"maxrun"},"EnforceIndex":true,"JobModifyIndex":7,"PolicyOverride":true,"PreserveCounts":true,"EvalPriority":80}`,
			},
		},
		{
			name:  "EnforceRegister",
			reply: reply{body: `{"EvalID":"e3"}`},
			call: func(t *testing.T, c *Client) {
				_, _, err := c.Jobs().EnforceRegister(job, 0, nil)
				must.NoError(t, err)
			},
			want: wantRequest{method: "PUT", path: "/v1/jobs", body: `{"Job":{"ID":"maxrun"},"EnforceIndex":true}`},
		},
		{
			name: "List",
			reply: reply{body: `[{"ID":"maxrun","Name":"maxrun","Type":"batch","Priority":50,"Status":"running",
				"JobSummary":{"JobID":"maxrun","Summary":{"maxrun":{"Running":1}}},"SubmitTime":1700000000000000000}]`},
			call: func(t *testing.T, c *Client) {
				jobs, _, err := c.Jobs().List(&QueryOptions{Prefix: "max"})
				must.NoError(t, err)
				must.Len(t, 1, jobs)
				must.Eq(t, "maxrun", jobs[0].ID)
				must.Eq(t, "running", jobs[0].Status)
				must.Eq(t, 1, jobs[0].JobSummary.Summary["maxrun"].Running)
				must.Eq(t, int64(1700000000000000000), jobs[0].SubmitTime)
			},
			want: wantRequest{method: "GET", path: "/v1/jobs", query: url.Values{"prefix": {"max"}}},
		},
		{
			name:  "PrefixList",
			reply: reply{body: `[]`},
			call: func(t *testing.T, c *Client) {
				jobs, _, err := c.Jobs().PrefixList("ma")
				must.NoError(t, err)
				must.SliceEmpty(t, jobs)
			},
			want: wantRequest{method: "GET", path: "/v1/jobs", query: url.Values{"prefix": {"ma"}}},
		},
		{
			name:  "Info escapes the ID",
			reply: reply{body: `{"ID":"a/b c","Type":"batch","TaskGroups":[{"Name":"g","MaxRunDuration":10000000000}]}`},
			call: func(t *testing.T, c *Client) {
				got, _, err := c.Jobs().Info("a/b c", nil)
				must.NoError(t, err)
				must.Eq(t, "a/b c", *got.ID)
				must.Eq(t, 10*time.Second, *got.TaskGroups[0].MaxRunDuration)
			},
			want: wantRequest{method: "GET", path: "/v1/job/a%2Fb%20c"},
		},
		{
			name:  "Allocations of every version",
			reply: reply{body: `[{"ID":"a1","JobID":"maxrun","ClientStatus":"running","MaxRunDeadline":1700000010000000000}]`},
			call: func(t *testing.T, c *Client) {
				allocs, _, err := c.Jobs().Allocations("maxrun", true, nil)
				must.NoError(t, err)
				must.Len(t, 1, allocs)
				must.Eq(t, "a1", allocs[0].ID)
				must.Eq(t, int64(1700000010000000000), allocs[0].MaxRunDeadline)
			},
			want: wantRequest{method: "GET", path: "/v1/job/maxrun/allocations", query: url.Values{"all": {"true"}}},
		},
		{
			name:  "Allocations of the current version",
			reply: reply{body: `[]`},
			call: func(t *testing.T, c *Client) {
				_, _, err := c.Jobs().Allocations("maxrun", false, &QueryOptions{Params: map[string]string{"resources": "true"}})
				must.NoError(t, err)
			},
			want: wantRequest{method: "GET", path: "/v1/job/maxrun/allocations", query: url.Values{"all": {"false"}, "resources": {"true"}}},
		},
		{
			name:  "Evaluations",
			reply: reply{body: `[{"ID":"e1","JobID":"maxrun","Status":"complete","TriggeredBy":"job-register"}]`},
			call: func(t *testing.T, c *Client) {
				evals, _, err := c.Jobs().Evaluations("maxrun", nil)
				must.NoError(t, err)
				must.Len(t, 1, evals)
				must.Eq(t, "job-register", evals[0].TriggeredBy)
			},
			want: wantRequest{method: "GET", path: "/v1/job/maxrun/evaluations"},
		},
		{
			name:  "Summary",
			reply: reply{body: `{"JobID":"maxrun","Namespace":"default","Summary":{"maxrun":{"Complete":2,"Failed":1}},"Children":{"Pending":0,"Running":1,"Dead":3}}`},
			call: func(t *testing.T, c *Client) {
				s, _, err := c.Jobs().Summary("maxrun", nil)
				must.NoError(t, err)
				must.Eq(t, TaskGroupSummary{Complete: 2, Failed: 1}, s.Summary["maxrun"])
				must.Eq(t, int64(3), s.Children.Dead)
			},
			want: wantRequest{method: "GET", path: "/v1/job/maxrun/summary"},
		},
		{
			name: "Versions with diffs",
			reply: reply{body: `{"Versions":[{"ID":"maxrun","Version":1},{"ID":"maxrun","Version":0}],
				"Diffs":[{"Type":"Edited","ID":"maxrun","TaskGroups":[{"Type":"Edited","Name":"maxrun",
				"Fields":[{"Type":"Edited","Name":"MaxRunDuration","Old":"10000000000","New":"20000000000"}]}]}]}`},
			call: func(t *testing.T, c *Client) {
				versions, diffs, _, err := c.Jobs().Versions("maxrun", true, nil)
				must.NoError(t, err)
				must.Len(t, 2, versions)
				must.Eq(t, uint64(1), *versions[0].Version)
				must.Len(t, 1, diffs)
				field := diffs[0].TaskGroups[0].Fields[0]
				must.Eq(t, FieldDiff{Type: DiffTypeEdited, Name: "MaxRunDuration", Old: "10000000000", New: "20000000000"}, *field)
			},
			want: wantRequest{method: "GET", path: "/v1/job/maxrun/versions", query: url.Values{"diffs": {"true"}}},
		},
		{
			name: "VersionsOpts against a version",
			reply: reply{body: `{"Versions":[{"ID":"maxrun","Version":1},{"ID":"maxrun","Version":0}],
				"Diffs":[{"Type":"Edited","ID":"maxrun"},{"Type":"None","ID":"maxrun"}]}`},
			call: func(t *testing.T, c *Client) {
				_, diffs, _, err := c.Jobs().VersionsOpts("maxrun", &VersionsOptions{Diffs: true, DiffVersion: ptr(uint64(0))}, nil)
				must.NoError(t, err)
				must.Len(t, 2, diffs)
				must.Eq(t, DiffTypeNone, diffs[1].Type)
			},
			want: wantRequest{method: "GET", path: "/v1/job/maxrun/versions", query: url.Values{"diffs": {"true"}, "diff_version": {"0"}}},
		},
		{
			name:  "VersionsOpts without options",
			reply: reply{body: `{"Versions":[{"ID":"maxrun","Version":0}],"Diffs":null}`},
			call: func(t *testing.T, c *Client) {
				versions, diffs, _, err := c.Jobs().VersionsOpts("maxrun", nil, nil)
				must.NoError(t, err)
				must.Len(t, 1, versions)
				must.Nil(t, diffs)
			},
			want: wantRequest{method: "GET", path: "/v1/job/maxrun/versions", query: url.Values{"diffs": {"false"}}},
		},
		{
			name:  "Deregister with purge",
			reply: reply{body: `{"EvalID":"e9","EvalCreateIndex":30,"JobModifyIndex":30}`, headers: map[string]string{"X-Nomad-Index": "30"}},
			call: func(t *testing.T, c *Client) {
				evalID, wm, err := c.Jobs().Deregister("a/b", true, nil)
				must.NoError(t, err)
				must.Eq(t, "e9", evalID)
				must.Eq(t, uint64(30), wm.LastIndex)
			},
			want: wantRequest{method: "DELETE", path: "/v1/job/a%2Fb", query: url.Values{"purge": {"true"}}},
		},
		{
			name:  "Deregister without purge",
			reply: reply{body: `{"EvalID":"e9"}`},
			call: func(t *testing.T, c *Client) {
				_, _, err := c.Jobs().Deregister("maxrun", false, nil)
				must.NoError(t, err)
			},
			want: wantRequest{method: "DELETE", path: "/v1/job/maxrun", query: url.Values{"purge": {"false"}}},
		},
		{
			name: "Validate",
			reply: reply{body: `{"DriverConfigValidated":false,"ValidationErrors":["group \"maxrun\": max_run_duration is only allowed for batch and sysbatch jobs"],
				"Error":"1 error occurred","Warnings":""}`},
			call: func(t *testing.T, c *Client) {
				resp, _, err := c.Jobs().Validate(job, nil)
				must.NoError(t, err)
				must.Len(t, 1, resp.ValidationErrors)
				must.StrContains(t, resp.ValidationErrors[0], "max_run_duration")
				must.Eq(t, "1 error occurred", resp.Error)
			},
			want: wantRequest{method: "PUT", path: "/v1/validate/job", body: `{"Job":{"ID":"maxrun","Type":"batch"}}`},
		},
		{
			name:  "ParseHCL",
			reply: reply{body: `{"ID":"maxrun","Name":"maxrun","Type":"batch"}`},
			call: func(t *testing.T, c *Client) {
				got, err := c.Jobs().ParseHCL(`job "maxrun" { type = "batch" }`, true)
				must.NoError(t, err)
				must.Eq(t, "maxrun", *got.Name)
			},
			want: wantRequest{method: "POST", path: "/v1/jobs/parse", body: `{"JobHCL":"job \"maxrun\" { type = \"batch\" }","Canonicalize":true}`},
		},
		{
			name:  "ParseHCLOpts",
			reply: reply{body: `{"ID":"maxrun"}`},
			call: func(t *testing.T, c *Client) {
				_, err := c.Jobs().ParseHCLOpts(&JobsParseRequest{JobHCL: "job", Variables: `d = "x"`})
				must.NoError(t, err)
			},
			want: wantRequest{method: "POST", path: "/v1/jobs/parse", body: `{"JobHCL":"job","Variables":"d = \"x\"","Canonicalize":false}`},
		},
		{
			name:  "PeriodicForce",
			reply: reply{body: `{"EvalID":"e5","EvalCreateIndex":40,"Index":40}`},
			call: func(t *testing.T, c *Client) {
				evalID, wm, err := c.Jobs().PeriodicForce("nightly", nil)
				must.NoError(t, err)
				must.Eq(t, "e5", evalID)
				must.Eq(t, uint64(40), wm.LastIndex, must.Sprint("index taken from the body when no header carries it"))
			},
			want: wantRequest{method: "POST", path: "/v1/job/nightly/periodic/force"},
		},
	})
}

func TestJobs_NilJob(t *testing.T) {
	c := newTestClient(t, "127.0.0.1:1")
	_, _, err := c.Jobs().Register(nil, nil)
	must.ErrorIs(t, err, errNilJob)
	_, _, err = c.Jobs().Validate(nil, nil)
	must.ErrorIs(t, err, errNilJob)
	_, err = c.Jobs().ParseHCLOpts(nil)
	must.ErrorContains(t, err, "parse request is nil")
}
