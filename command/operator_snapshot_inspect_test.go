package command

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/snapshot"
)

// runSnapshotInspect runs "operator snapshot inspect" with args.
func runSnapshotInspect(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ui := newTestUi()
	code := (&OperatorSnapshotInspectCommand{Meta: Meta{Ui: ui}}).Run(args)
	return code, uiOutput(ui), ui.ErrorWriter.String()
}

// writeSnapshotArchive writes a snapshot file holding state and returns
// its path.
func writeSnapshotArchive(t *testing.T, meta snapshot.Meta, state []byte) string {
	t.Helper()
	var buf bytes.Buffer
	meta.Size = int64(len(state))
	must.NoError(t, snapshot.Write(&buf, meta, bytes.NewReader(state)))
	path := filepath.Join(t.TempDir(), "backup.snap")
	must.NoError(t, os.WriteFile(path, buf.Bytes(), 0o600))
	return path
}

func TestOperatorSnapshotInspect(t *testing.T) {
	created := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	path := writeSnapshotArchive(t, snapshot.Meta{
		ID: "3-120-1714979289000", Index: 120, Term: 3, Version: 1,
		DroverVersion: "0.1.0-dev", CreateTime: created,
	}, []byte("0123456789"))

	code, out, errOut := runSnapshotInspect(t, path)
	must.Eq(t, 0, code, must.Sprint(errOut))
	want := formatKV([]string{
		"ID|3-120-1714979289000",
		"Size|10",
		"Index|120",
		"Term|3",
		"Version|1",
		"Created|" + formatTime(created),
		"Drover Version|0.1.0-dev",
	})
	must.Eq(t, want+"\n", out)
	must.StrContains(t, out, "Index          = 120")
}

// testSnapshotMeta is the metadata of a snapshot file the tests write.
func testSnapshotMeta() snapshot.Meta {
	return snapshot.Meta{ID: "1-2-3", Index: 2, Term: 1, Version: 1}
}

func TestOperatorSnapshotInspect_BadFiles(t *testing.T) {
	path := writeSnapshotArchive(t, testSnapshotMeta(), []byte("state"))
	data, err := os.ReadFile(path)
	must.NoError(t, err)
	dir := t.TempDir()
	truncated := filepath.Join(dir, "truncated.snap")
	must.NoError(t, os.WriteFile(truncated, data[:len(data)-10], 0o600))
	corrupt := filepath.Join(dir, "corrupt.snap")
	flipped := bytes.Clone(data)
	flipped[len(flipped)-3] ^= 0xff
	must.NoError(t, os.WriteFile(corrupt, flipped, 0o600))

	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no argument", nil, "This command takes one argument: <file>"},
		{"missing file", []string{filepath.Join(dir, "none.snap")}, "Error reading snapshot: open " + filepath.Join(dir, "none.snap") + ": no such file or directory"},
		{"truncated", []string{truncated}, "Error reading snapshot: " + truncated + ": read snapshot archive: "},
		{"corrupt", []string{corrupt}, "Error reading snapshot: " + corrupt + ": read snapshot archive: "},
		{"not a snapshot", []string{writeJob(t, "x", "")}, "not a gzip'd snapshot archive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runSnapshotInspect(t, tc.args...)
			must.Eq(t, 1, code)
			must.Eq(t, "", out)
			must.StrContains(t, errOut, tc.want)
		})
	}
}
