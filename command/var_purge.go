package command

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/drover-io/drover/api"
)

// VarPurgeCommand deletes a variable.
type VarPurgeCommand struct{ Meta }

func (c *VarPurgeCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover var purge [options] <path>

  Deletes the variable at path. A locked variable is kept until its lock
  is released. It needs variables destroy on the path.
` + clientOptionsHelp + `
Purge Options:

  -check-index <index>
    Delete only if the variable's modify index is this one.
`)
}

func (c *VarPurgeCommand) Synopsis() string { return "Delete a variable" }

func (c *VarPurgeCommand) Run(args []string) int {
	var checkIndex string
	fs := c.ClientFlagSet("var purge")
	fs.StringVar(&checkIndex, "check-index", "", "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 {
		return usageError(c.Ui, "var purge", "This command takes one argument: <path>")
	}
	var cas *uint64
	if checkIndex != "" {
		index, err := strconv.ParseUint(checkIndex, 10, 64)
		if err != nil {
			return usageError(c.Ui, "var purge", fmt.Sprintf("-check-index %q is not a non-negative integer", checkIndex))
		}
		cas = &index
	}
	path := strings.Trim(fs.Arg(0), "/")
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	_, err := client.Variables().Delete(path, cas, nil)
	var conflict api.ErrCASConflict
	if errors.As(err, &conflict) {
		c.Ui.Error(fmt.Sprintf("Error purging variable %q: %v (or the variable is locked)", path, err))
		return exitError
	}
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "purging variable", err))
		return exitError
	}
	c.Ui.Output(fmt.Sprintf("Successfully purged variable %q!", path))
	return exitOK
}
