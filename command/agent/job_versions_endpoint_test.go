package agent

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// registerThreeVersions registers job "hist" three times: version 0 as
// batchJobJSON has it; version 1 adds job meta and raises the group's
// max_run_duration from 10s to 20s; version 2 raises the count from 1 to
// 3 and changes the task's args.
func registerThreeVersions(t *testing.T, a *Agent) {
	t.Helper()
	job := batchJobJSON("hist")
	registerJob(t, a, job)

	group := job["TaskGroups"].([]any)[0].(map[string]any)
	job["Meta"] = map[string]string{"owner": "ops"}
	group["MaxRunDuration"] = int64(20 * time.Second)
	registerJob(t, a, job)

	group["Count"] = 3
	task := group["Tasks"].([]any)[0].(map[string]any)
	task["Config"] = map[string]any{"command": "/bin/sleep", "args": []string{"2000"}}
	registerJob(t, a, job)
}

// fieldNamed returns the field diff of that name, failing the test if
// there is none.
func fieldNamed(t *testing.T, fields []*api.FieldDiff, name string) *api.FieldDiff {
	t.Helper()
	i := slices.IndexFunc(fields, func(f *api.FieldDiff) bool { return f.Name == name })
	must.NonNegative(t, i, must.Sprintf("no field %q in %v", name, fieldNames(fields)))
	return fields[i]
}

func fieldNames(fields []*api.FieldDiff) []string {
	names := make([]string, 0, len(fields))
	for _, f := range fields {
		names = append(names, f.Name)
	}
	return names
}

func TestJobVersionsEndpoint_DiffsAgainstPredecessor(t *testing.T) {
	a := testAgent(t)
	registerThreeVersions(t, a)

	resp := get(t, a, "/v1/job/hist/versions?diffs=true", nil)
	var out api.JobVersionsResponse
	must.NoError(t, json.Unmarshal(resp.body, &out))
	must.Len(t, 3, out.Versions)
	must.Len(t, 2, out.Diffs, must.Sprint("one diff fewer than versions"))
	for i, want := range []uint64{2, 1, 0} {
		must.Eq(t, want, *out.Versions[i].Version)
	}

	// Diffs[0]: version 2 against version 1, the count and the task config.
	d := out.Diffs[0]
	must.Eq(t, api.DiffTypeEdited, d.Type)
	must.Eq(t, "hist", d.ID)
	must.SliceEmpty(t, d.Fields, must.Sprintf("job fields: %v", fieldNames(d.Fields)))
	must.Len(t, 1, d.TaskGroups)
	tg := d.TaskGroups[0]
	must.Eq(t, api.DiffTypeEdited, tg.Type)
	must.Eq(t, []string{"Count"}, fieldNames(tg.Fields))
	must.Eq(t, api.FieldDiff{Type: api.DiffTypeEdited, Name: "Count", Old: "1", New: "3"}, *tg.Fields[0])
	must.Len(t, 1, tg.Tasks)
	task := tg.Tasks[0]
	must.Eq(t, api.DiffTypeEdited, task.Type)
	must.Len(t, 1, task.Objects)
	must.Eq(t, "Config", task.Objects[0].Name)
	args := fieldNamed(t, task.Objects[0].Fields, "args[0]")
	must.Eq(t, api.FieldDiff{Type: api.DiffTypeEdited, Name: "args[0]", Old: "1000", New: "2000"}, *args)

	// Diffs[1]: version 1 against version 0, the meta and max_run_duration.
	d = out.Diffs[1]
	must.Eq(t, api.DiffTypeEdited, d.Type)
	must.Eq(t, []string{"Meta[owner]"}, fieldNames(d.Fields))
	must.Eq(t, api.FieldDiff{Type: api.DiffTypeAdded, Name: "Meta[owner]", New: "ops"}, *d.Fields[0])
	tg = d.TaskGroups[0]
	must.Eq(t, []string{"MaxRunDuration"}, fieldNames(tg.Fields))
	must.Eq(t, api.FieldDiff{Type: api.DiffTypeEdited, Name: "MaxRunDuration", Old: "10000000000", New: "20000000000"}, *tg.Fields[0])
	must.Eq(t, api.DiffTypeNone, tg.Tasks[0].Type)

	// The wire shape is Nomad's JobDiff.
	var raw struct{ Diffs []map[string]json.RawMessage }
	must.NoError(t, json.Unmarshal(resp.body, &raw))
	for _, key := range []string{"Type", "ID", "Fields", "Objects", "TaskGroups"} {
		must.MapContainsKey(t, raw.Diffs[0], key)
	}
}

func TestJobVersionsEndpoint_DiffVersion(t *testing.T) {
	a := testAgent(t)
	registerThreeVersions(t, a)

	var out api.JobVersionsResponse
	get(t, a, "/v1/job/hist/versions?diffs=true&diff_version=0", &out)
	must.Len(t, 3, out.Versions)
	must.Len(t, 3, out.Diffs, must.Sprint("one diff per version against version 0"))

	// Version 2 against version 0 has every change.
	d := out.Diffs[0]
	must.Eq(t, []string{"Meta[owner]"}, fieldNames(d.Fields))
	must.Eq(t, []string{"Count", "MaxRunDuration"}, fieldNames(d.TaskGroups[0].Fields))
	must.Eq(t, api.DiffTypeEdited, d.TaskGroups[0].Tasks[0].Type)
	// Version 1 against version 0: no task change yet.
	must.Eq(t, []string{"MaxRunDuration"}, fieldNames(out.Diffs[1].TaskGroups[0].Fields))
	// Version 0 against itself.
	must.Eq(t, api.DiffTypeNone, out.Diffs[2].Type)

	// diff_version without diffs=true asks for nothing, as in Nomad.
	resp := get(t, a, "/v1/job/hist/versions?diff_version=1", nil)
	var raw map[string]json.RawMessage
	must.NoError(t, json.Unmarshal(resp.body, &raw))
	must.Eq(t, "null", string(raw["Diffs"]))
}

func TestJobVersionsEndpoint_NoDiffs(t *testing.T) {
	a := testAgent(t)
	registerJob(t, a, batchJobJSON("single"))

	for _, path := range []string{
		"/v1/job/single/versions",
		"/v1/job/single/versions?diffs=false",
		// A job with one version has nothing to diff it with.
		"/v1/job/single/versions?diffs=true",
	} {
		resp := get(t, a, path, nil)
		var raw map[string]json.RawMessage
		must.NoError(t, json.Unmarshal(resp.body, &raw))
		must.Eq(t, "null", string(raw["Diffs"]), must.Sprint(path))
	}

	var out api.JobVersionsResponse
	get(t, a, "/v1/job/single/versions?diffs=true&diff_version=0", &out)
	must.Len(t, 1, out.Diffs)
	must.Eq(t, api.DiffTypeNone, out.Diffs[0].Type)
}

func TestJobVersionsEndpoint_BadParams(t *testing.T) {
	a := testAgent(t)
	registerJob(t, a, batchJobJSON("bad"))

	cases := []struct{ query, body string }{
		{"diffs=maybe", "invalid diffs \"maybe\": must be true or false\n"},
		{"diffs=true&diff_version=-1", "invalid diff_version \"-1\": must be a job version number (0, 1, ...)\n"},
		{"diffs=true&diff_version=one", "invalid diff_version \"one\": must be a job version number (0, 1, ...)\n"},
		{"diffs=true&diff_version=7", "invalid diff_version 7: the job has no version 7\n"},
		{"diffs=true&diff_tag=prod", "invalid diff_tag \"prod\": Drover has no job version tags; use diff_version\n"},
	}
	for _, c := range cases {
		resp := do(t, a, http.MethodGet, "/v1/job/bad/versions?"+c.query, nil)
		must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(c.query))
		must.Eq(t, c.body, resp.String(), must.Sprint(c.query))
	}
}

// TestJobVersionsEndpoint_OfficialClient reads the diffs with Nomad's own
// Go client, as `nomad job history -p` does.
func TestJobVersionsEndpoint_OfficialClient(t *testing.T) {
	a := testAgent(t)
	registerThreeVersions(t, a)
	client, err := nomadapi.NewClient(&nomadapi.Config{Address: "http://" + a.HTTPAddr()})
	must.NoError(t, err)

	versions, diffs, qm, err := client.Jobs().Versions("hist", true, nil)
	must.NoError(t, err)
	must.Positive(t, qm.LastIndex)
	must.Len(t, 3, versions)
	must.Len(t, 2, diffs)
	must.Eq(t, "Edited", diffs[0].Type)
	must.Eq(t, "hist", diffs[0].ID)
	count := diffs[0].TaskGroups[0].Fields[0]
	must.Eq(t, nomadapi.FieldDiff{Type: "Edited", Name: "Count", Old: "1", New: "3"}, *count)
	must.Eq(t, "Config", diffs[0].TaskGroups[0].Tasks[0].Objects[0].Name)
	must.Eq(t, "Meta[owner]", diffs[1].Fields[0].Name)
	must.Eq(t, "MaxRunDuration", diffs[1].TaskGroups[0].Fields[0].Name)

	against := uint64(1)
	_, diffs, _, err = client.Jobs().VersionsOpts("hist", &nomadapi.VersionsOptions{Diffs: true, DiffVersion: &against}, nil)
	must.NoError(t, err)
	must.Len(t, 3, diffs)
	must.Eq(t, "None", diffs[1].Type)

	_, diffs, _, err = client.Jobs().Versions("hist", false, nil)
	must.NoError(t, err)
	must.Nil(t, diffs)
}
