package command

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/nomad/snapshot"
)

// OperatorSnapshotSaveCommand saves the servers' state to a file.
type OperatorSnapshotSaveCommand struct{ Meta }

func (c *OperatorSnapshotSaveCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover operator snapshot save [options] <file>

  Saves a point-in-time snapshot of the servers' state to <file>: the jobs,
  their versions, evaluations, allocations, nodes and periodic launches. The
  snapshot comes from the leader unless -stale is given. The file is written
  only once the whole snapshot has arrived and checks out; an existing file
  at <file> is replaced.
` + clientOptionsHelp + `
Snapshot Save Options:

  -stale
    Take the snapshot on whichever server the agent talks to, even if it is
    not the leader, so that a snapshot can be saved while there is no leader.
    The snapshot may lag the leader's state.
`)
}

func (c *OperatorSnapshotSaveCommand) Synopsis() string {
	return "Save the servers' state to a file"
}

func (c *OperatorSnapshotSaveCommand) Run(args []string) int {
	var stale bool
	fs := c.ClientFlagSet("operator snapshot save")
	fs.BoolVar(&stale, "stale", false, "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 || fs.Arg(0) == "" {
		return usageError(c.Ui, "operator snapshot save", "This command takes one argument: <file>")
	}
	path := fs.Arg(0)
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	body, err := client.Operator().Snapshot(&api.QueryOptions{AllowStale: stale})
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "saving snapshot", err))
		return exitError
	}
	defer body.Close()
	meta, err := writeSnapshotFile(path, body)
	if err != nil {
		c.Ui.Error(fmt.Sprintf("Error saving snapshot: %v", err))
		return exitError
	}
	c.Ui.Output(fmt.Sprintf("State file written to %s (snapshot %s, index %d)", path, meta.ID, meta.Index))
	return exitOK
}

// writeSnapshotFile writes the archive read from r to path. It goes to a
// temporary file beside path first, which is checked and then renamed, so
// that path never holds a partial or corrupt snapshot.
func writeSnapshotFile(path string, r io.Reader) (*snapshot.Meta, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create a temporary file beside %s: %w", path, err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err := io.Copy(f, r); err != nil {
		return nil, fmt.Errorf("receive the snapshot: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("check the snapshot: %w", err)
	}
	meta, err := snapshot.Verify(f)
	if err != nil {
		return nil, fmt.Errorf("the snapshot received does not check out: %w", err)
	}
	if err := errors.Join(f.Sync(), f.Close()); err != nil {
		return nil, fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, fmt.Errorf("move the snapshot to %s: %w", path, err)
	}
	ok = true
	return meta, nil
}
