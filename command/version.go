package command

import (
	"strings"

	"github.com/drover-io/drover/version"
)

// VersionCommand prints the version.
type VersionCommand struct{ Meta }

func (c *VersionCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover version

  Prints the version of this Drover binary.
`)
}

func (c *VersionCommand) Synopsis() string { return "Print the Drover version" }

func (c *VersionCommand) Run(args []string) int {
	fs := c.FlagSet("version")
	if err := fs.Parse(args); err != nil {
		return 1
	}
	c.Ui.Output(version.String())
	return 0
}
