package command

import (
	"fmt"
	"io"
	"strings"
)

// OperatorSnapshotRestoreCommand replaces the servers' state with a saved
// snapshot.
type OperatorSnapshotRestoreCommand struct{ Meta }

func (c *OperatorSnapshotRestoreCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover operator snapshot restore [options] <file>

  Replaces the servers' state with the snapshot in <file>, as "drover
  operator snapshot save" wrote it. The file is checked before it is sent,
  and again by the leader, which refuses a truncated or altered snapshot
  without changing anything. The agent forwards the snapshot to the leader
  when it is not the leader.

  Every job, evaluation, allocation and node written since the snapshot was
  taken is lost: restore into a new cluster, or to recover from a disaster.
` + clientOptionsHelp)
}

func (c *OperatorSnapshotRestoreCommand) Synopsis() string {
	return "Restore the servers' state from a snapshot file"
}

func (c *OperatorSnapshotRestoreCommand) Run(args []string) int {
	fs := c.ClientFlagSet("operator snapshot restore")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 || fs.Arg(0) == "" {
		return usageError(c.Ui, "operator snapshot restore", "This command takes one argument: <file>")
	}
	f, meta, err := openSnapshotFile(fs.Arg(0))
	if err != nil {
		c.Ui.Error(fmt.Sprintf("Error reading snapshot: %v", err))
		return exitError
	}
	defer f.Close()
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		c.Ui.Error(fmt.Sprintf("Error reading snapshot: %v", err))
		return exitError
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	if _, err := client.Operator().SnapshotRestore(f, nil); err != nil {
		c.Ui.Error(apiErrorLine(client, "restoring snapshot", err))
		return exitError
	}
	c.Ui.Output(fmt.Sprintf("Snapshot Restored (snapshot %s, index %d)", meta.ID, meta.Index))
	return exitOK
}
