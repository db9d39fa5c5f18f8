package command

import "github.com/hashicorp/cli"

// Commands returns every CLI command keyed by its words, e.g. "job run".
func Commands(meta Meta) map[string]cli.CommandFactory {
	return map[string]cli.CommandFactory{
		"job":          func() (cli.Command, error) { return &JobCommand{Meta: meta}, nil },
		"job init":     func() (cli.Command, error) { return &JobInitCommand{Meta: meta}, nil },
		"job run":      func() (cli.Command, error) { return &JobRunCommand{Meta: meta}, nil },
		"job validate": func() (cli.Command, error) { return &JobValidateCommand{Meta: meta}, nil },
		"version":      func() (cli.Command, error) { return &VersionCommand{Meta: meta}, nil },
	}
}
