package agent

import (
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// TestRawExec_taskRunsAsItsUser runs a raw_exec task with user = "nobody"
// on a root agent: it runs as nobody, writes its local/, secrets/, tmp/ and
// the shared alloc/data, and its output still reaches its logs, which the
// supervisor writes as root. CI runs as root.
func TestRawExec_taskRunsAsItsUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("running a task as another user needs a root agent; CI runs as root")
	}
	nobody, err := user.Lookup("nobody")
	must.NoError(t, err)
	a := testClientAgent(t)
	script := `set -e
id -u
echo local > local/file
echo secret > secrets/file
echo tmp > tmp/file
echo shared > ../alloc/data/file
cat local/file secrets/file tmp/file ../alloc/data/file`
	job := rawExecJob("as-nobody", map[string]string{"task": script})
	job.TaskGroups[0].Tasks[0].User = "nobody"
	alloc := placeAlloc(t, a.Server(), job, a.Client().NodeID())
	done := waitAlloc(t, a.Server(), alloc.ID, "ended", func(al *structs.Allocation) bool { return al.ClientTerminalStatus() })
	stderr := readLog(t, a, alloc.ID, "task", "stderr")
	must.Eq(t, structs.AllocClientStatusComplete, done.ClientStatus, must.Sprintf("stderr: %s; events: %s", stderr, taskEventLines(done.TaskStates["task"])))
	out := readLog(t, a, alloc.ID, "task", "stdout")
	must.Eq(t, nobody.Uid+"\nlocal\nsecret\ntmp\nshared\n", out)

	ar, err := a.Client().AllocRunner(alloc.ID)
	must.NoError(t, err)
	info, err := os.Stat(filepath.Join(ar.AllocDir().AllocDir, "task", "secrets"))
	must.NoError(t, err)
	must.Eq(t, os.FileMode(0o700), info.Mode().Perm(), must.Sprint("secrets/ stays private to its user"))
}

// readLog reads a task's log through the HTTP API.
func readLog(t *testing.T, a *Agent, allocID, task, stream string) string {
	t.Helper()
	resp := do(t, a, "GET", "/v1/client/fs/logs/"+allocID+"?task="+task+"&type="+stream+"&plain=true", nil)
	must.Eq(t, 200, resp.code, must.Sprint(resp))
	return strings.ReplaceAll(string(resp.body), "\r", "")
}

func taskEventLines(ts *structs.TaskState) string {
	if ts == nil {
		return "<no task state>"
	}
	var lines []string
	for _, ev := range ts.Events {
		lines = append(lines, ev.Type+": "+ev.DisplayMessage+" "+ev.Message+" "+ev.DriverError)
	}
	return strings.Join(lines, "; ")
}
