package agent

import (
	"net/http"
	"strings"
	"testing"
	"time"

	nomadapi "github.com/hashicorp/nomad/api"
	"github.com/shoenig/test/must"
)

// The official client registers a parameterized job, dispatches it with
// a payload, meta and an idempotency token, and reads the child and the
// parent's children back.
func TestJobDispatchEndpoint_officialClient(t *testing.T) {
	a := testAgent(t)
	client, err := nomadapi.NewClient(&nomadapi.Config{Address: "http://" + a.HTTPAddr()})
	must.NoError(t, err)
	job := nomadapi.NewBatchJob("encode", "encode", "global", 50)
	job.ParameterizedJob = &nomadapi.ParameterizedJobConfig{Payload: "required", MetaRequired: []string{"email"}, MetaOptional: []string{"pager"}}
	task := nomadapi.NewTask("t", "raw_exec").SetConfig("command", "/bin/true")
	task.DispatchPayload = &nomadapi.DispatchPayloadConfig{File: "in.json"}
	job.AddTaskGroup(nomadapi.NewTaskGroup("g", 1).AddTask(task))
	reg, _, err := client.Jobs().Register(job, nil)
	must.NoError(t, err)
	must.Eq(t, "", reg.EvalID, must.Sprint("a parameterized job is not evaluated"))

	opts := &nomadapi.DispatchOptions{JobID: "encode", Payload: []byte(`{"n":1}`), Meta: map[string]string{"email": "me@example.com"}}
	d, wm, err := client.Jobs().DispatchOpts(opts, &nomadapi.WriteOptions{IdempotencyToken: "tok"})
	must.NoError(t, err)
	must.StrHasPrefix(t, "encode/dispatch-", d.DispatchedJobID)
	must.NotEq(t, "", d.EvalID)
	must.Positive(t, d.JobCreateIndex)
	must.Positive(t, wm.LastIndex)

	again, _, err := client.Jobs().DispatchOpts(opts, &nomadapi.WriteOptions{IdempotencyToken: "tok"})
	must.NoError(t, err)
	must.Eq(t, d.DispatchedJobID, again.DispatchedJobID)

	child, _, err := client.Jobs().Info(d.DispatchedJobID, nil)
	must.NoError(t, err)
	must.True(t, child.Dispatched)
	must.Eq(t, "encode", *child.ParentID)
	must.Eq(t, `{"n":1}`, string(child.Payload))
	must.Eq(t, "me@example.com", child.Meta["email"])
	must.Eq(t, "tok", *child.DispatchIdempotencyToken)
	must.Eq(t, "in.json", child.TaskGroups[0].Tasks[0].DispatchPayload.File)
	parent, _, err := client.Jobs().Info("encode", nil)
	must.NoError(t, err)
	must.True(t, parent.IsParameterized())
	must.Eq(t, "required", parent.ParameterizedJob.Payload)

	summary, _, err := client.Jobs().Summary("encode", nil)
	must.NoError(t, err)
	must.NotNil(t, summary.Children)
	must.Eq(t, 1, summary.Children.Sum())
	stubs, _, err := client.Jobs().PrefixList("encode/dispatch")
	must.NoError(t, err)
	must.Len(t, 1, stubs)
	must.Eq(t, "encode", stubs[0].ParentID)
	stubs, _, err = client.Jobs().PrefixList("encode")
	must.NoError(t, err)
	for _, s := range stubs {
		must.Eq(t, s.ID == "encode", s.ParameterizedJob, must.Sprint(s.ID))
	}

	// Errors reach the client as 400s that say what is wrong.
	_, _, err = client.Jobs().Dispatch("encode", map[string]string{"other": "1"}, nil, "", nil)
	must.ErrorContains(t, err, "400")
	must.ErrorContains(t, err, "requires a payload")
	must.ErrorContains(t, err, `missing required key "email"`)
	must.ErrorContains(t, err, `key "other" is not allowed`)
	_, _, err = client.Jobs().Dispatch("encode", map[string]string{"email": "x"}, make([]byte, 16*1024+1), "", nil)
	must.ErrorContains(t, err, "more than the limit of 16384 (16 KiB)")
	_, _, err = client.Jobs().Dispatch("nope", nil, nil, "", nil)
	must.ErrorContains(t, err, "404")
}

func TestJobDispatchEndpoint_requests(t *testing.T) {
	a := testAgent(t)
	job := batchJobJSON("p")
	job["ParameterizedJob"] = map[string]any{"MaxRunDurationMax": int64(time.Minute)}
	registerJob(t, a, job)

	resp := do(t, a, http.MethodPut, "/v1/job/p/dispatch", map[string]any{"JobID": "other"})
	must.Eq(t, http.StatusBadRequest, resp.code)
	must.StrContains(t, resp.String(), `JobID "other" does not match the job "p" of the path`)
	resp = do(t, a, http.MethodPut, "/v1/job/p/dispatch", map[string]any{"Payload": "not base64!"})
	must.Eq(t, http.StatusBadRequest, resp.code)
	resp = do(t, a, http.MethodPut, "/v1/job/p/dispatch", map[string]any{"MaxRunDuration": int64(2 * time.Minute)})
	must.Eq(t, http.StatusBadRequest, resp.code)
	must.StrContains(t, resp.String(), "max_run_duration_max = 1m0s")

	resp = do(t, a, http.MethodPost, "/v1/job/p/dispatch", map[string]any{"MaxRunDuration": int64(30 * time.Second), "Payload": "aGk="})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	must.StrContains(t, resp.String(), `"DispatchedJobID":"p/dispatch-`)
	child, err := a.Server().State().JobsByIDPrefix(nil, "default", "p/dispatch-")
	must.NoError(t, err)
	must.Len(t, 1, child)
	must.Eq(t, "hi", string(child[0].Payload))
	must.Eq(t, 30*time.Second, *child[0].TaskGroups[0].MaxRunDuration)

	// The child reads back with Drover's field and Nomad's.
	resp = do(t, a, http.MethodGet, "/v1/job/"+strings.ReplaceAll(child[0].ID, "/", "%2F"), nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	must.StrContains(t, resp.String(), `"DispatchMaxRunDuration":30000000000`)
	must.StrContains(t, resp.String(), `"Dispatched":true`)
	must.StrContains(t, resp.String(), `"Payload":"aGk="`)
}
