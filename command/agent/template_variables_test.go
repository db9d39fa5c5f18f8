package agent

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/internal/waitfor"
)

// TestTemplate_nomadVarLive: a task's template reads its job's variable
// with the task's workload identity, on a client with ACLs on; a write of
// the variable re-renders the file and signals the running task, which
// sees the new value.
func TestTemplate_nomadVarLive(t *testing.T) {
	a := testClientAgent(t, aclEnabled)
	resp := do(t, a, http.MethodPut, "/v1/acl/bootstrap", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	var boot api.ACLToken
	must.NoError(t, json.Unmarshal(resp.body, &boot))
	mgmt := boot.SecretID
	waitForKeyring(t, a, mgmt)
	putVar := func(path, v string) {
		t.Helper()
		resp := doAs(t, a, mgmt, http.MethodPut, "/v1/var/"+path, api.Variable{Items: api.VariableItems{"v": v}})
		must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	}
	putVar("nomad/jobs/tvars", "1")
	putVar("nomad/jobs/other", "secret")

	task := rawExecTask("worker", "/bin/sh", "-c",
		`trap 'cat local/v.txt >> "$NOMAD_ALLOC_DIR/seen"' USR1; while true; do sleep 0.1; done`)
	task["Templates"] = []any{map[string]any{
		"DestPath":     "local/v.txt",
		"EmbeddedTmpl": `v={{ with nomadVar "nomad/jobs/tvars" }}{{ .v }}{{ end }}`,
		"ChangeMode":   "signal", "ChangeSignal": "SIGUSR1", "Splay": 0,
	}}
	job := map[string]any{
		"ID": "tvars", "Name": "tvars", "Type": "batch", "Datacenters": []string{"dc1"},
		"TaskGroups": []any{map[string]any{"Name": "g", "Count": 1, "Tasks": []any{task}}},
	}
	resp = doAs(t, a, mgmt, http.MethodPut, "/v1/jobs", map[string]any{"Job": job})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))

	var allocID, local, seen string
	waitfor.True(t, "the rendered file", func() bool {
		resp := doAs(t, a, mgmt, http.MethodGet, "/v1/job/tvars/allocations", nil)
		var stubs []*api.AllocationListStub
		if resp.code != http.StatusOK || json.Unmarshal(resp.body, &stubs) != nil || len(stubs) != 1 {
			return false
		}
		allocID = stubs[0].ID
		ar, err := a.Client().AllocRunner(allocID)
		if err != nil {
			return false
		}
		td, err := ar.AllocDir().TaskDir("worker")
		if err != nil {
			return false
		}
		local, seen = filepath.Join(td.LocalDir, "v.txt"), filepath.Join(ar.AllocDir().SharedDir, "seen")
		b, err := os.ReadFile(local)
		return err == nil && string(b) == "v=1" && stubs[0].ClientStatus == "running"
	}, wait.Timeout(60*time.Second), wait.Gap(50*time.Millisecond))
	t.Cleanup(func() { stopAndWait(t, a, mgmt, allocID) })

	putVar("nomad/jobs/tvars", "2")
	waitfor.True(t, "the task saw the new value", func() bool {
		b, err := os.ReadFile(seen)
		return err == nil && strings.Contains(string(b), "v=2")
	}, wait.Timeout(60*time.Second), wait.Gap(50*time.Millisecond))
	must.Eq(t, "v=2", readTestFile(t, local))
}

// TestTemplate_nomadVarOfAnotherJob: the task's identity reads its own
// job's variables only; a template reading another's fails the task's
// start, saying why.
func TestTemplate_nomadVarOfAnotherJob(t *testing.T) {
	a := testClientAgent(t, aclEnabled)
	resp := do(t, a, http.MethodPut, "/v1/acl/bootstrap", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	var boot api.ACLToken
	must.NoError(t, json.Unmarshal(resp.body, &boot))
	mgmt := boot.SecretID
	waitForKeyring(t, a, mgmt)
	resp = doAs(t, a, mgmt, http.MethodPut, "/v1/var/nomad/jobs/other", api.Variable{Items: api.VariableItems{"v": "secret"}})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))

	task := rawExecTask("worker", "/bin/true")
	task["RestartPolicy"] = map[string]any{"Attempts": 0, "Mode": "fail"}
	task["Templates"] = []any{map[string]any{"DestPath": "local/v.txt", "EmbeddedTmpl": `{{ with nomadVar "nomad/jobs/other" }}{{ .v }}{{ end }}`}}
	job := map[string]any{
		"ID": "tdenied", "Name": "tdenied", "Type": "batch", "Datacenters": []string{"dc1"},
		"TaskGroups": []any{map[string]any{"Name": "g", "Count": 1, "Tasks": []any{task},
			"ReschedulePolicy": map[string]any{"Attempts": 0, "Unlimited": false}}},
	}
	resp = doAs(t, a, mgmt, http.MethodPut, "/v1/jobs", map[string]any{"Job": job})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	var alloc api.Allocation
	waitfor.True(t, "the allocation to fail", func() bool {
		resp := doAs(t, a, mgmt, http.MethodGet, "/v1/job/tdenied/allocations", nil)
		var stubs []*api.AllocationListStub
		if resp.code != http.StatusOK || json.Unmarshal(resp.body, &stubs) != nil || len(stubs) != 1 || stubs[0].ClientStatus != "failed" {
			return false
		}
		resp = doAs(t, a, mgmt, http.MethodGet, "/v1/allocation/"+stubs[0].ID, nil)
		return json.Unmarshal(resp.body, &alloc) == nil
	}, wait.Timeout(60*time.Second), wait.Gap(50*time.Millisecond))
	var msgs []string
	for _, ev := range alloc.TaskStates["worker"].Events {
		msgs = append(msgs, ev.DisplayMessage)
	}
	must.StrContains(t, strings.Join(msgs, "\n"), `nomadVar "nomad/jobs/other": `)
	must.StrContains(t, strings.ToLower(strings.Join(msgs, "\n")), "permission denied")
}

func readTestFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	must.NoError(t, err)
	return string(b)
}
