package command

import (
	"fmt"
	"os"
	"strings"

	"github.com/drover-io/drover/nomad/snapshot"
)

// OperatorSnapshotInspectCommand describes a snapshot file, offline.
type OperatorSnapshotInspectCommand struct{ Meta }

func (c *OperatorSnapshotInspectCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover operator snapshot inspect <file>

  Checks the snapshot in <file>, as "drover operator snapshot save" wrote it,
  and prints what it holds: its ID, the size of the state in bytes, the raft
  index and term it was taken at, raft's snapshot version, when it was saved
  and by which version of Drover. It needs no agent. A truncated or altered
  file is reported as such, with exit code 1.
`)
}

func (c *OperatorSnapshotInspectCommand) Synopsis() string {
	return "Check a snapshot file and describe it"
}

func (c *OperatorSnapshotInspectCommand) Run(args []string) int {
	fs := c.FlagSet("operator snapshot inspect")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 || fs.Arg(0) == "" {
		return usageError(c.Ui, "operator snapshot inspect", "This command takes one argument: <file>")
	}
	f, meta, err := openSnapshotFile(fs.Arg(0))
	if err != nil {
		c.Ui.Error(fmt.Sprintf("Error reading snapshot: %v", err))
		return exitError
	}
	f.Close()
	rows := []string{
		"ID|" + meta.ID,
		fmt.Sprintf("Size|%d", meta.Size),
		fmt.Sprintf("Index|%d", meta.Index),
		fmt.Sprintf("Term|%d", meta.Term),
		fmt.Sprintf("Version|%d", meta.Version),
	}
	if !meta.CreateTime.IsZero() {
		rows = append(rows, "Created|"+formatTime(meta.CreateTime))
	}
	if meta.DroverVersion != "" {
		rows = append(rows, "Drover Version|"+meta.DroverVersion)
	}
	c.Ui.Output(formatKV(rows))
	return exitOK
}

// openSnapshotFile opens a snapshot file and checks it whole, returning
// the open file, read to its end, and the snapshot's metadata.
func openSnapshotFile(path string) (*os.File, *snapshot.Meta, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	meta, err := snapshot.Verify(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, meta, nil
}
