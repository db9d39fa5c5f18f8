package command

import (
	"fmt"
	"io"
	"os"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/jobspec2"
)

// jobspecFlags are the flags every command that reads a jobspec shares.
type jobspecFlags struct {
	vars     stringSliceFlag
	varFiles stringSliceFlag
}

// parseJobspec reads the jobspec at path ("-" for stdin) with the given
// variables and returns the job as the HTTP API takes it.
func parseJobspec(path string, stdin io.Reader, f jobspecFlags) (*api.Job, error) {
	cfg := &jobspec2.ParseConfig{
		Path:     path,
		ArgVars:  f.vars,
		VarFiles: f.varFiles,
		Envs:     os.Environ(),
		Strict:   true,
		// The CLI reads the user's own files, so file() and fileexists()
		// work here, relative to the jobspec's folder; the server's
		// /v1/jobs/parse never enables them.
		AllowFS: true,
		// A typo in a task's config is reported here, at its line, rather
		// than when a client starts the task.
		CheckDrivers: true,
	}
	if path == "-" {
		body, err := io.ReadAll(stdin)
		if err != nil {
			return nil, fmt.Errorf("read job from stdin: %w", err)
		}
		cfg.Body = body
	} else {
		body, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read job file: %w", err)
		}
		cfg.Body = body
	}
	job, err := jobspec2.ParseWithConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("parse job %s: %w", displayPath(path), err)
	}
	return job, nil
}

func displayPath(path string) string {
	if path == "-" {
		return "<stdin>"
	}
	return path
}
