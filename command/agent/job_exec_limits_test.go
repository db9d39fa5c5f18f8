package agent

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/shoenig/test/must"
)

// TestJob_ExecLimitsRefusedAtRegister: what execve would refuse when the
// client starts the task (an env name with "=" or a NUL byte, more
// arguments and environment than Linux takes) is a 400 naming the field
// when the job is submitted, not a task that fails on every client.
func TestJob_ExecLimitsRefusedAtRegister(t *testing.T) {
	a := testAgent(t)
	bigMeta := map[string]string{}
	for i := range 7 {
		bigMeta[fmt.Sprintf("k%d", i)] = strings.Repeat("m", 120<<10)
	}
	cases := []struct {
		name   string
		mutate func(job, task map[string]any)
		want   string
	}{
		{"env name with =", func(_, task map[string]any) { task["Env"] = map[string]string{"A=B": "v"} },
			`Task group "g" task "t": env key "A=B" must not contain "="`},
		{"env name with NUL", func(_, task map[string]any) { task["Env"] = map[string]string{"A\x00B": "v"} },
			`Task group "g" task "t": env key "A\x00B" must not contain a NUL byte`},
		{"job meta past ARG_MAX in its tasks' environment", func(job, _ map[string]any) { job["Meta"] = bigMeta },
			`Task group "g" task "t": arguments and environment take 1720682 bytes as execve counts them (each string, its NUL and its pointer), more than 1572864 (Linux's ARG_MAX of 2 MiB less 512 KiB for what the client adds); the largest: the job's meta (1720642 bytes), config command (16 bytes), config args #2 (13 bytes)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			job := artifactJob("exec", "true")
			task := job["TaskGroups"].([]any)[0].(map[string]any)["Tasks"].([]any)[0].(map[string]any)
			delete(task, "Artifacts")
			tc.mutate(job, task)
			resp := do(t, a, http.MethodPut, "/v1/jobs", map[string]any{"Job": job})
			must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
			must.Eq(t, "invalid job: 1 problem: "+tc.want+"\n", string(resp.body))
			resp = do(t, a, http.MethodGet, "/v1/job/exec", nil)
			must.Eq(t, http.StatusNotFound, resp.code, must.Sprint("nothing was registered"))
		})
	}
}
