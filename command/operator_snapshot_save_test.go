package command

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/snapshot"
)

// runSnapshotSave runs "operator snapshot save" with args and returns its
// exit code and output.
func runSnapshotSave(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ui := newTestUi()
	code := (&OperatorSnapshotSaveCommand{Meta: Meta{Ui: ui}}).Run(args)
	return code, uiOutput(ui), ui.ErrorWriter.String()
}

func TestOperatorSnapshotSave(t *testing.T) {
	_, addr := testAgent(t)
	runDetached(t, addr, writeJob(t, "saved", ""))
	path := filepath.Join(t.TempDir(), "backup.snap")
	must.NoError(t, os.WriteFile(path, []byte("an older backup"), 0o600))

	code, out, errOut := runSnapshotSave(t, "-address", addr, path)
	must.Eq(t, 0, code, must.Sprint(errOut))
	must.StrContains(t, out, "State file written to "+path+" (snapshot ")
	data, err := os.ReadFile(path)
	must.NoError(t, err)
	meta, err := snapshot.Verify(bytes.NewReader(data))
	must.NoError(t, err)
	must.StrContains(t, out, meta.ID)
	must.Eq(t, []string{"backup.snap"}, dirNames(t, filepath.Dir(path)), must.Sprint("no temporary file is left"))

	code, _, errOut = runSnapshotSave(t, "-address", addr, "-stale", path)
	must.Eq(t, 0, code, must.Sprint(errOut))
}

func TestOperatorSnapshotSave_Errors(t *testing.T) {
	code, _, errOut := runSnapshotSave(t)
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "This command takes one argument: <file>")

	code, _, errOut = runSnapshotSave(t, "a.snap", "b.snap")
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "This command takes one argument: <file>")

	dir := t.TempDir()
	path := filepath.Join(dir, "backup.snap")
	must.NoError(t, os.WriteFile(path, []byte("an older backup"), 0o600))
	addr := freeAddress(t)
	code, _, errOut = runSnapshotSave(t, "-address", addr, path)
	must.Eq(t, 1, code)
	must.StrContains(t, errOut, "Error connecting to Drover at "+addr)
	kept, err := os.ReadFile(path)
	must.NoError(t, err)
	must.Eq(t, "an older backup", string(kept))
}

// TestWriteSnapshotFile_Refuses holds that a stream that is not a whole
// snapshot leaves the destination as it was and no temporary file behind.
func TestWriteSnapshotFile_Refuses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "backup.snap")
	must.NoError(t, os.WriteFile(path, []byte("an older backup"), 0o600))

	_, err := writeSnapshotFile(path, strings.NewReader("not a snapshot"))
	must.ErrorContains(t, err, "the snapshot received does not check out")
	kept, err := os.ReadFile(path)
	must.NoError(t, err)
	must.Eq(t, "an older backup", string(kept))
	must.Eq(t, []string{"backup.snap"}, dirNames(t, dir))

	_, err = writeSnapshotFile(filepath.Join(dir, "missing", "backup.snap"), strings.NewReader(""))
	must.ErrorContains(t, err, "create a temporary file beside")
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	must.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
