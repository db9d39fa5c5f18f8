package command

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/drover-io/drover/api"
)

// NamespaceApplyCommand creates or updates a namespace.
type NamespaceApplyCommand struct{ Meta }

func (c *NamespaceApplyCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover namespace apply [options] <namespace | path>

  Creates or updates a namespace. The argument is the namespace's name, or
  the path of a namespace specification (HCL, or JSON ending in .json; "-"
  reads stdin) with name, description, meta and capabilities, as Nomad's.
  It needs a management token.
` + clientOptionsHelp + `
Apply Options:

  -description=<text>
    The namespace's description. An existing namespace keeps its own
    unless this is given.

  -max-run-duration-default=<duration>
    Drover's: the max_run_duration of each group of a batch or sysbatch
    job that gives none (without it, the ceiling below). "0" removes it.

  -max-run-duration-max=<duration>
    Drover's: the longest max_run_duration a job, group, task or dispatch
    may give; longer submissions are refused. "0" removes it.

  -alloc-deadline-extension-max=<duration>
    Drover's: how far past its group's max_run_duration "alloc deadline"
    may move an allocation's budget. "0" removes it.

  The specification file gives the same in a time_limits block
  (max_run_duration_default, max_run_duration_max,
  alloc_deadline_extension_max).
`)
}

func (c *NamespaceApplyCommand) Synopsis() string { return "Create or update a namespace" }

func (c *NamespaceApplyCommand) Run(args []string) int {
	var description string
	var limits timeLimitFlags
	flags := c.ClientFlagSet("namespace apply")
	flags.StringVar(&description, "description", "", "")
	limits.register(flags)
	if err := flags.Parse(args); err != nil {
		return exitError
	}
	if flags.NArg() != 1 {
		return usageError(c.Ui, "namespace apply", "This command takes one argument: <namespace | path>")
	}
	descriptionSet := false
	flags.Visit(func(f *flag.Flag) { descriptionSet = descriptionSet || f.Name == "description" })
	client, ok := c.apiClient()
	if !ok {
		return exitError
	}
	ns, err := c.namespace(client, flags.Arg(0))
	if err != nil {
		c.Ui.Error(err.Error())
		return exitError
	}
	if descriptionSet {
		ns.Description = description
	}
	limits.apply(ns)
	if _, err := client.Namespaces().Register(ns, nil); err != nil {
		c.Ui.Error(apiErrorLine(client, "applying namespace specification", err))
		return exitError
	}
	c.Ui.Output(fmt.Sprintf("Successfully applied namespace %q!", ns.Name))
	return exitOK
}

// namespace is what to write: the specification in the file the argument
// names, else the namespace of that name, as stored or new.
func (c *NamespaceApplyCommand) namespace(client *api.Client, arg string) (*api.Namespace, error) {
	if arg == "-" || isFile(arg) {
		src, err := readInput(arg, c.Stdin)
		if err != nil {
			return nil, fmt.Errorf("Error reading namespace specification: %v", err)
		}
		return parseNamespaceSpec(src, arg)
	}
	existing, _, err := client.Namespaces().Info(arg, nil)
	switch {
	case err == nil:
		existing.CreateIndex, existing.ModifyIndex = 0, 0
		return existing, nil
	case api.IsNotFound(err):
		return &api.Namespace{Name: arg}, nil
	}
	return nil, errors.New(apiErrorLine(client, "looking up namespace", err))
}

// isFile reports whether path names a regular file. An argument that
// names none is a namespace name; one that is neither (a missing file)
// is refused by the server as a name.
func isFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}
