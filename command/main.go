// Package command is Drover's CLI: one file per command, wired together here.
package command

import (
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/hashicorp/cli"

	"github.com/drover-io/drover/version"
)

// Main runs the CLI with args (without the program name) and returns the exit
// code.
func Main(args []string) int {
	return run(args, os.Stdin, os.Stdout, os.Stderr)
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ui := &safeUi{&cli.BasicUi{Reader: stdin, Writer: stdout, ErrorWriter: stderr}}
	commands := Commands(Meta{Ui: ui, Stdin: stdin})
	if len(args) > 0 && args[0] == "help" {
		// "drover help job run" is "drover job run -h".
		args = append(slices.Clone(args[1:]), "-h")
	}
	if words := commandWords(args); len(words) > 0 {
		if name, unknown := resolveCommand(commands, words); unknown != "" {
			fmt.Fprintln(stderr, unknownCommandError(commands, words, name, unknown))
			return exitError
		}
	}
	c := &cli.CLI{
		Name:           "drover",
		Version:        version.String(),
		Args:           args,
		Commands:       commands,
		HiddenCommands: hiddenCommands,
		Autocomplete:   false,
		HelpWriter:     stdout,
		ErrorWriter:    stderr,
	}
	code, err := c.Run()
	if err != nil {
		fmt.Fprintf(stderr, "Error executing CLI: %v\n", err)
		return 1
	}
	return code
}
