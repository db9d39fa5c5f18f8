package isolate

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/drover-io/drover/internal/beneath"
)

// hostRootExec runs a HostRoot task (exec2): in the host's file system,
// seen through a mount namespace of its own where the supervisors' state
// is hidden and /proc is its PID namespace's, from its task directory,
// held by Landlock to its unveiled paths, with no capabilities.
func hostRootExec(spec *initSpec) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	allocRoot, err := beneath.Open(spec.AllocRoot)
	if err != nil {
		return err
	}
	defer allocRoot.Close()
	taskDir, err := allocRoot.OpenDir(spec.TaskName)
	if err != nil {
		return err
	}
	defer taskDir.Close()
	if err := hideDir(taskDir, ".supervisor"); err != nil {
		return err
	}
	if spec.PrivatePID {
		if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
			return fmt.Errorf("mount the task's /proc: %w", err)
		}
	}
	if err := unix.Fchdir(int(taskDir.File().Fd())); err != nil {
		return fmt.Errorf("enter the task directory: %w", err)
	}
	exe, err := hostLookPath(spec.Path, spec.Env)
	if err != nil {
		return err
	}
	ruleset, err := landlockRuleset(spec.Unveil, allocGuard(&spec.Spec))
	if err != nil {
		return err
	}
	defer unix.Close(ruleset)
	if err := limitCaps(spec.Caps); err != nil {
		return err
	}
	if err := becomeUser(spec.User); err != nil {
		return err
	}
	if err := landlockRestrict(ruleset); err != nil {
		return err
	}
	err = unix.Exec(exe, spec.Args, spec.Env)
	if errors.Is(err, unix.EACCES) {
		return fmt.Errorf("exec %s: %w: the task may not execute it (unveil its directory with \"rx:\")", exe, err)
	}
	return fmt.Errorf("exec %s: %w", exe, err)
}

// allocGuard keeps a task's unveiled paths off the client's allocation
// directories, which hold the other tasks' files and their supervisors'
// state: a path in them or above them (a "/tmp" where the client's data
// lives under /tmp) may not be unveiled, but for the task's own directory
// and its allocation's shared one.
func allocGuard(spec *Spec) func(string) error {
	clientAllocs := filepath.Dir(spec.AllocRoot)
	own := []string{filepath.Join(spec.AllocRoot, spec.TaskName), filepath.Join(spec.AllocRoot, spec.AllocDirName)}
	return func(resolved string) error {
		for _, dir := range own {
			if within(resolved, dir) {
				return nil
			}
		}
		if within(resolved, clientAllocs) || within(clientAllocs, resolved) {
			return fmt.Errorf("it leads to %s, which would reach the client's allocation directories (%s), other tasks' files among them", resolved, clientAllocs)
		}
		return nil
	}
}

// within reports whether path is dir or beneath it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && filepath.IsLocal(rel)
}

// hostLookPath finds the task's command on the host: a path as given
// (a relative one from the task directory), or a name in the task's PATH.
func hostLookPath(command string, env []string) (string, error) {
	if strings.Contains(command, "/") {
		if err := checkExecutable(command); err != nil {
			return "", fmt.Errorf(`config key "command": %w`, err)
		}
		return command, nil
	}
	pathEnv := "/usr/local/bin:/usr/bin:/bin"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathEnv = v
		}
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, command)
		if checkExecutable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf(`config key "command": executable %q not found in the task's PATH %q`, command, pathEnv)
}
