package command

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/command/agent"
)

// runSnapshotRestore runs "operator snapshot restore" with args.
func runSnapshotRestore(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ui := newTestUi()
	code := (&OperatorSnapshotRestoreCommand{Meta: Meta{Ui: ui}}).Run(args)
	return code, uiOutput(ui), ui.ErrorWriter.String()
}

// agentJobIDs lists the IDs of the jobs in an agent's state, sorted.
func agentJobIDs(t *testing.T, a *agent.Agent) []string {
	t.Helper()
	jobs, err := a.Server().State().Jobs(nil)
	must.NoError(t, err)
	var ids []string
	for _, j := range jobs {
		ids = append(ids, j.ID)
	}
	return ids
}

// TestOperatorSnapshot_RoundTrip saves one agent's state, inspects the
// file, and restores it into another agent.
func TestOperatorSnapshot_RoundTrip(t *testing.T) {
	_, srcAddr := testAgent(t)
	runDetached(t, srcAddr, writeJob(t, "alpha", ""))
	runDetached(t, srcAddr, writeJob(t, "beta", ""))
	path := filepath.Join(t.TempDir(), "backup.snap")
	code, _, errOut := runSnapshotSave(t, "-address", srcAddr, path)
	must.Eq(t, 0, code, must.Sprint(errOut))

	code, out, errOut := runSnapshotInspect(t, path)
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, "ID ")
	must.StrContains(t, out, "Index ")

	dst, dstAddr := testAgent(t)
	runDetached(t, dstAddr, writeJob(t, "replaced", ""))
	code, out, errOut = runSnapshotRestore(t, "-address", dstAddr, path)
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, "Snapshot Restored (snapshot ")
	must.Eq(t, []string{"alpha", "beta"}, agentJobIDs(t, dst))
}

// TestOperatorSnapshotRestore_Refuses holds that a bad file is refused
// before anything is sent, and that the agent's state stays as it was.
func TestOperatorSnapshotRestore_Refuses(t *testing.T) {
	dst, addr := testAgent(t)
	runDetached(t, addr, writeJob(t, "kept", ""))

	dir := t.TempDir()
	truncated := filepath.Join(dir, "truncated.snap")
	good := writeSnapshotArchive(t, testSnapshotMeta(), []byte("{}"))
	data, err := os.ReadFile(good)
	must.NoError(t, err)
	must.NoError(t, os.WriteFile(truncated, data[:len(data)/2], 0o600))

	code, _, errOut := runSnapshotRestore(t, "-address", addr, truncated)
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "Error reading snapshot: "+truncated+": read snapshot archive: ")
	must.StrContains(t, errOut, "the archive is truncated")

	// A whole archive whose state the server cannot load is refused by
	// the server.
	code, _, errOut = runSnapshotRestore(t, "-address", addr, good)
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "Error restoring snapshot: Unexpected response code: 400 (restore snapshot ")
	must.StrContains(t, errOut, "the state in the archive does not load")
	must.True(t, slices.Equal([]string{"kept"}, agentJobIDs(t, dst)))

	code, _, errOut = runSnapshotRestore(t)
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "This command takes one argument: <file>")

	unreachable := freeAddress(t)
	code, _, errOut = runSnapshotRestore(t, "-address", unreachable, good)
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "Error connecting to Drover at "+unreachable)
}
