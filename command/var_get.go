package command

import (
	"errors"
	"fmt"
	"strings"

	"github.com/drover-io/drover/api"
)

// VarGetCommand prints a variable, or one of its items.
type VarGetCommand struct{ Meta }

func (c *VarGetCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover var get [options] <path>

  Prints the variable at path, decrypted: its metadata and its items, or
  one item alone. It needs variables read on the path.
` + clientOptionsHelp + `
Get Options:

  -item <key>
    Print only the value of this item, with no newline added.

  -out (table|json|hcl|go-template)
    How to print the variable. Default table.

  -template <text>
    The Go template of -out go-template, run on the variable.
`)
}

func (c *VarGetCommand) Synopsis() string { return "Read a variable" }

func (c *VarGetCommand) Run(args []string) int {
	var item, out, tmpl string
	fs := c.ClientFlagSet("var get")
	fs.StringVar(&item, "item", "", "")
	fs.StringVar(&out, "out", varOutTable, "")
	fs.StringVar(&tmpl, "template", "", "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() != 1 {
		return usageError(c.Ui, "var get", "This command takes one argument: <path>")
	}
	if item != "" && out != varOutTable {
		return usageError(c.Ui, "var get", "-item and -out cannot be used together")
	}
	path := strings.Trim(fs.Arg(0), "/")
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	v, _, err := client.Variables().Read(path, nil)
	if errors.Is(err, api.ErrVariableNotFound) {
		c.Ui.Error(fmt.Sprintf("Variable %q not found", path))
		return exitError
	}
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "retrieving variable", err))
		return exitError
	}
	if item != "" {
		value, ok := v.Items[item]
		if !ok {
			c.Ui.Error(fmt.Sprintf("Variable %q has no item %q", path, item))
			return exitError
		}
		c.Ui.Output(value)
		return exitOK
	}
	text, err := formatVariable(v, out, tmpl)
	if err != nil {
		c.Ui.Error(err.Error())
		return exitError
	}
	c.Ui.Output(text)
	return exitOK
}
