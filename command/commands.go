package command

import "github.com/hashicorp/cli"

// Commands returns every CLI command keyed by its words, e.g. "job run".
func Commands(ui cli.Ui) map[string]cli.CommandFactory {
	meta := Meta{Ui: ui}
	return map[string]cli.CommandFactory{
		"version": func() (cli.Command, error) { return &VersionCommand{Meta: meta}, nil },
	}
}
