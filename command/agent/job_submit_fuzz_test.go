package agent

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/convert"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/jobcheck"
	"github.com/drover-io/drover/structs"
)

// FuzzJobRegisterBody decodes arbitrary bytes as the body of PUT /v1/jobs,
// the way the register handler does: decode, check the fields Drover does
// not implement, convert, canonicalise, validate and hold to the limits.
// None may panic; every refusal is an error the HTTP layer can word; and a
// job accepted, encoded as the API does and submitted again, is accepted
// again as the same job. Plain `go test` runs the seeds below and those in
// testdata/fuzz/FuzzJobRegisterBody.
func FuzzJobRegisterBody(f *testing.F) {
	job := batchJobJSON("fuzz")
	withAll := batchJobJSON("all")
	withAll["Meta"] = map[string]string{"k": "v"}
	withAll["Periodic"] = map[string]any{"Enabled": true, "Spec": "*/5 * * * *", "ProhibitOverlap": true}
	withAll["Constraints"] = []any{map[string]any{"LTarget": "${attr.kernel.name}", "RTarget": "linux", "Operand": "="}}
	g := withAll["TaskGroups"].([]any)[0].(map[string]any)
	g["RestartPolicy"] = map[string]any{"Attempts": 3, "Interval": 60e9, "Delay": 5e9, "Mode": "fail"}
	g["ReschedulePolicy"] = map[string]any{"Attempts": 1, "Interval": 3600e9, "Delay": 5e9, "DelayFunction": "exponential", "MaxDelay": 60e9}
	g["Tasks"].([]any)[0].(map[string]any)["Lifecycle"] = map[string]any{"Hook": "prestart", "Sidecar": false}
	g["Tasks"].([]any)[0].(map[string]any)["Artifacts"] = []any{map[string]any{"GetterSource": "https://example.com/a.tgz", "RelativeDest": "local/"}}
	for _, body := range []any{
		map[string]any{"Job": job},
		map[string]any{"Job": withAll, "EnforceIndex": true, "JobModifyIndex": 3},
		map[string]any{"Job": map[string]any{"ID": "x", "TaskGroups": []any{map[string]any{"Count": 1e9}}}},
		map[string]any{"Job": map[string]any{"ID": "e\x1bvil", "Affinities": []any{}, "Update": map[string]any{}}},
	} {
		data, err := json.Marshal(body)
		must.NoError(f, err)
		f.Add(data)
	}
	for _, s := range []string{``, `{}`, `{"Job":null}`, `{"Job":{}}`, `{"Job":[]}`, `{"Job":{"TaskGroups":[null]}}`,
		`{"Job":{"TaskGroups":[{"Tasks":[null]}]}}`, `{"Job":{"ID":"a","MaxRunDuration":9223372036854775807}}`} {
		f.Add([]byte(s))
	}

	f.Fuzz(func(t *testing.T, body []byte) {
		job, err := submitBody(body)
		if err != nil {
			code, reason := httpserver.ErrorStatus(err)
			must.True(t, code == http.StatusBadRequest || code == http.StatusRequestEntityTooLarge, must.Sprintf("%d %s", code, reason))
			must.NotEq(t, "", reason)
			return
		}
		again, err := json.Marshal(map[string]any{"Job": convert.JobToAPI(job)})
		must.NoError(t, err)
		job2, err := submitBody(again)
		must.NoError(t, err, must.Sprintf("a job accepted once, read back, is refused: %s", again))
		must.Eq(t, job, job2)
		must.Eq(t, job, job.Copy())
	})
}

// submitBody is the register handler's path from body to job.
func submitBody(body []byte) (*structs.Job, error) {
	r := httptest.NewRequest(http.MethodPut, "/v1/jobs", bytes.NewReader(body))
	req, fields, err := readJobRequest[api.JobRegisterRequest](r, "job")
	if err != nil {
		return nil, err
	}
	if err := jobInBody(req.Job, "job register request", ""); err != nil {
		return nil, err
	}
	job := convert.JobFromAPI(req.Job)
	if job.Namespace == "" {
		job.Namespace = structs.DefaultNamespace
	}
	job.Canonicalize()
	if err := fields.refuse(jobcheck.Submitted(job, structs.DefaultJobLimits())); err != nil {
		return nil, err
	}
	return job, nil
}
