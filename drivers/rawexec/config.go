package rawexec

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/configschema"
	"github.com/drover-io/drover/drivers/exec/isolate"
	"github.com/drover-io/drover/drivers/internal/taskuser"
)

// taskConfig is a raw_exec task's `config` block.
type taskConfig struct {
	// Command is the program to run: an absolute path, a path relative to
	// the task directory, or a name looked up in the task's PATH.
	Command string
	Args    []string
	// WorkDir is the absolute working directory; the task directory when
	// empty.
	WorkDir string
}

// parseConfig reads a task's config, which configschema.RawExec defines.
func parseConfig(raw map[string]any) (*taskConfig, error) {
	r, err := configschema.RawExec.Read(raw)
	if err != nil {
		return nil, err
	}
	c := &taskConfig{
		Command: r.String("command"),
		Args:    r.StringList("args"),
		WorkDir: r.String("work_dir"),
	}
	return c, r.Err()
}

// buildSpec turns a task into what its supervisor runs.
func buildSpec(cfg *drivers.TaskConfig, conf *taskConfig) (*supervisorSpec, error) {
	path, err := resolveCommand(conf.Command, cfg.TaskDir, cfg.Env["PATH"])
	if err != nil {
		return nil, err
	}
	cred, err := taskCredential(cfg.User)
	if err != nil {
		return nil, err
	}
	dir := conf.WorkDir
	if dir == "" {
		dir = cfg.TaskDir
	}
	spec := logSpec(cfg)
	spec.Path = path
	spec.Args = append([]string{conf.Command}, conf.Args...)
	spec.Env = envList(cfg.Env)
	spec.Dir = dir
	spec.Credential = cred
	if os.Geteuid() == 0 && isolate.CgroupVersion() > 0 {
		spec.Cgroup = isolate.CgroupName(cfg.ID)
	}
	return spec, nil
}

// buildIsolatedSpec turns an isolated task into what its supervisor runs.
func buildIsolatedSpec(cfg *drivers.TaskConfig, it *IsolatedTask) *supervisorSpec {
	spec := logSpec(cfg)
	spec.Path = it.Command
	spec.Args = append([]string{it.Command}, it.Args...)
	spec.Env = envList(it.Env)
	spec.Dir = "/"
	spec.Isolation = it.Isolation
	return spec
}

// logSpec is a supervisor spec with the task's logs alone.
func logSpec(cfg *drivers.TaskConfig) *supervisorSpec {
	maxFiles, maxMB := cfg.LogMaxFiles, cfg.LogMaxFileSizeMB
	if maxFiles <= 0 {
		maxFiles = defaultLogMaxFiles
	}
	if maxMB <= 0 {
		maxMB = defaultLogMaxFileSizeMB
	}
	return &supervisorSpec{
		StdoutPath:      cfg.StdoutPath,
		StderrPath:      cfg.StderrPath,
		LogMaxFiles:     maxFiles,
		LogMaxFileBytes: int64(maxMB) << 20,
	}
}

// Log limits when the task gives none, as in Nomad's log block.
const (
	defaultLogMaxFiles      = 10
	defaultLogMaxFileSizeMB = 10
)

// resolveCommand finds the executable for command. A command with a slash
// is a path, relative ones to the task directory; a bare name is looked up
// in PATH (the task's, else the agent's).
func resolveCommand(command, taskDir, pathEnv string) (string, error) {
	if strings.Contains(command, "/") {
		path := command
		if !filepath.IsAbs(path) {
			path = filepath.Join(taskDir, path)
		}
		if err := checkExecutable(path); err != nil {
			return "", fmt.Errorf(`config key "command": %w`, err)
		}
		return path, nil
	}
	if pathEnv == "" {
		pathEnv = os.Getenv("PATH")
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			continue
		}
		path := filepath.Join(dir, command)
		if checkExecutable(path) == nil {
			return path, nil
		}
	}
	return "", fmt.Errorf(`config key "command": executable %q not found in PATH %q`, command, pathEnv)
}

func checkExecutable(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("executable %s: %w", path, errors.Unwrap(err))
	}
	if info.IsDir() || info.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", path)
	}
	return nil
}

// taskCredential returns the credential for the task's `user`, or nil to
// run as the agent's own user. Another user needs a root agent.
func taskCredential(name string) (*credential, error) {
	if name == "" {
		return nil, nil
	}
	ids, err := taskuser.Lookup(name)
	if err != nil {
		return nil, err
	}
	if int(ids.UID) == os.Geteuid() {
		return nil, nil
	}
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("task user %q: running tasks as another user needs the agent to run as root", name)
	}
	return &credential{UID: ids.UID, GID: ids.GID}, nil
}

// envList renders the task's environment for exec.
func envList(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}
