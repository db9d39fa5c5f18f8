package command

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/drover-io/drover/api"
)

// VarPutCommand creates or replaces a variable.
type VarPutCommand struct{ Meta }

func (c *VarPutCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover var put [options] <path> [<key>=<value>]...
       drover var put [options] @<spec file> [<key>=<value>]...

  Creates or replaces the variable at path with the items given: the
  variable holds exactly these items afterwards. A value "@file" is read
  from that file, a value "-" from stdin. In place of the path, "@file" (or
  "-", stdin) names a variable specification, HCL as "var get -out hcl"
  prints it or JSON as "var get -out json" does, whose items the pairs
  that follow add to or replace. It needs variables write on the path.
` + clientOptionsHelp + `
Put Options:

  -check-index <index>
    Write only if the variable's modify index is this one (0: only if it
    does not exist yet). A specification's modify_index is used when this
    is not given.

  -force
    Write whatever the variable's index, even when the specification has a
    modify_index.

  -in (hcl|json)
    The format of the specification; by default JSON for a file ending in
    .json, else HCL.

  -out (none|table|json|hcl|go-template)
    How to print the variable written. Default none: a line saying it was
    written.

  -template <text>
    The Go template of -out go-template.
`)
}

func (c *VarPutCommand) Synopsis() string { return "Create or update a variable" }

func (c *VarPutCommand) Run(args []string) int {
	var force bool
	var in, out, tmpl, checkIndex string
	fs := c.ClientFlagSet("var put")
	fs.BoolVar(&force, "force", false, "")
	fs.StringVar(&in, "in", "", "")
	fs.StringVar(&out, "out", varOutNone, "")
	fs.StringVar(&tmpl, "template", "", "")
	fs.StringVar(&checkIndex, "check-index", "", "")
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() < 1 {
		return usageError(c.Ui, "var put", "This command takes a path, or @<spec file>, and key=value pairs")
	}
	v, cas, err := c.variable(fs.Args(), in)
	if err != nil {
		c.Ui.Error(err.Error())
		return exitError
	}
	if checkIndex != "" {
		index, err := strconv.ParseUint(checkIndex, 10, 64)
		if err != nil {
			return usageError(c.Ui, "var put", fmt.Sprintf("-check-index %q is not a non-negative integer", checkIndex))
		}
		cas = &index
	}
	if force {
		cas = nil
	}
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	written, _, err := client.Variables().Put(v, cas, nil)
	var conflict api.ErrCASConflict
	if errors.As(err, &conflict) {
		c.Ui.Error(fmt.Sprintf("Error writing variable %q: %v: the variable changed, or is locked; read it again (var get) or use -force", v.Path, err))
		return exitError
	}
	if err != nil {
		c.Ui.Error(apiErrorLine(client, "writing variable", err))
		return exitError
	}
	if out == varOutNone {
		verb := "Updated"
		if written.CreateIndex == written.ModifyIndex {
			verb = "Created"
		}
		c.Ui.Output(fmt.Sprintf("%s variable %q with modify index %d", verb, written.Path, written.ModifyIndex))
		return exitOK
	}
	text, err := formatVariable(written, out, tmpl)
	if err != nil {
		c.Ui.Error(err.Error())
		return exitError
	}
	c.Ui.Output(text)
	return exitOK
}

// variable is the variable the arguments give, and the modify index of
// its specification, if any.
func (c *VarPutCommand) variable(args []string, in string) (*api.Variable, *uint64, error) {
	v := &api.Variable{Path: strings.Trim(args[0], "/"), Items: api.VariableItems{}}
	var cas *uint64
	stdinUsed := false
	if spec, ok := specSource(args[0]); ok {
		src, err := readInput(spec, c.Stdin)
		if err != nil {
			return nil, nil, fmt.Errorf("Error reading variable specification: %w", err)
		}
		stdinUsed = spec == "-"
		if v, cas, err = parseVariableSpec(src, spec, in); err != nil {
			return nil, nil, err
		}
		if v.Items == nil {
			v.Items = api.VariableItems{}
		}
		v.Path = strings.Trim(v.Path, "/")
		if v.Path == "" {
			return nil, nil, fmt.Errorf("the variable specification %s has no path", spec)
		}
	}
	for _, pair := range args[1:] {
		key, value, ok := strings.Cut(pair, "=")
		if !ok || key == "" {
			return nil, nil, fmt.Errorf("argument %q is not key=value", pair)
		}
		switch {
		case value == "-":
			if stdinUsed {
				return nil, nil, fmt.Errorf("item %q: stdin is read once, and already was", key)
			}
			stdinUsed = true
			b, err := io.ReadAll(c.Stdin)
			if err != nil {
				return nil, nil, fmt.Errorf("item %q: read stdin: %w", key, err)
			}
			value = string(b)
		case strings.HasPrefix(value, "@"):
			b, err := os.ReadFile(value[1:])
			if err != nil {
				return nil, nil, fmt.Errorf("item %q: %w", key, err)
			}
			value = string(b)
		}
		v.Items[key] = value
	}
	if len(v.Items) == 0 {
		return nil, nil, errors.New("a variable needs at least one item: give key=value pairs or a specification with items")
	}
	return v, cas, nil
}

// specSource is the specification file an argument names: "@file", or
// "-" for stdin.
func specSource(arg string) (string, bool) {
	if arg == "-" {
		return "-", true
	}
	if name, ok := strings.CutPrefix(arg, "@"); ok && name != "" {
		return name, true
	}
	return "", false
}
