package command

import (
	"strings"

	"github.com/hashicorp/cli"
)

// OperatorSnapshotCommand is the parent of the "operator snapshot ..."
// commands; alone it prints help.
type OperatorSnapshotCommand struct{ Meta }

func (c *OperatorSnapshotCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover operator snapshot <subcommand> [options] <file>

  Saves the state of the Drover servers to a file, and restores it from one:
  the jobs, their versions, evaluations, allocations, nodes and periodic
  launches. A snapshot is a self-checking archive; restore and inspect refuse
  one that is truncated or altered.

  Save the cluster's state:

      $ drover operator snapshot save backup.snap

  Look at a snapshot, offline:

      $ drover operator snapshot inspect backup.snap

  Restore it, replacing the cluster's state:

      $ drover operator snapshot restore backup.snap

  Run "drover operator snapshot <subcommand> -h" for help on a subcommand.
`)
}

func (c *OperatorSnapshotCommand) Synopsis() string { return "Save and restore the servers' state" }

func (c *OperatorSnapshotCommand) Run(args []string) int { return cli.RunResultHelp }
