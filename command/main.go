// Package command is Drover's CLI: one file per command, wired together here.
package command

import (
	"fmt"
	"io"
	"os"

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
	c := &cli.CLI{
		Name:           "drover",
		Version:        version.String(),
		Args:           args,
		Commands:       Commands(Meta{Ui: ui, Stdin: stdin}),
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
