// Package allocdir lays out an allocation's directory on the client:
//
//	<root>/<alloc id>/
//	  alloc/          shared by the group's tasks (NOMAD_ALLOC_DIR)
//	    data/         kept across in-place updates
//	    logs/         <task>.stdout.N and <task>.stderr.N
//	    tmp/
//	  <task>/         one per task
//	    local/        the task's own files (NOMAD_TASK_DIR)
//	    secrets/      mode 0700 (NOMAD_SECRETS_DIR)
//	    tmp/
package allocdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/drover-io/drover/internal/beneath"
)

// Names of the directories within an allocation directory.
const (
	SharedAllocName = "alloc"
	SharedDataName  = "data"
	LogDirName      = "logs"
	TmpDirName      = "tmp"
	TaskLocalName   = "local"
	TaskSecretsName = "secrets"
)

// Directory modes. Secrets are for the task alone; the rest may be read by
// the task's user whatever it is.
const (
	dirMode        os.FileMode = 0o755
	secretsDirMode os.FileMode = 0o700
	tmpDirMode     os.FileMode = 0o777 | os.ModeSticky
)

// AllocDir is an allocation's directory.
type AllocDir struct {
	// AllocDir is <root>/<alloc id>.
	AllocDir string
	// SharedDir is the alloc/ directory all tasks share.
	SharedDir string
	// LogDir is alloc/logs.
	LogDir string
}

// New returns the layout of allocation allocID's directory under root. It
// creates nothing; see Build.
func New(root, allocID string) (*AllocDir, error) {
	if err := checkName("allocation ID", allocID); err != nil {
		return nil, err
	}
	// One string, of which the shorter paths are prefixes: a runner keeps
	// them for as long as its allocation runs.
	dir := filepath.Join(root, allocID)
	logs := filepath.Join(dir, SharedAllocName, LogDirName)
	return &AllocDir{
		AllocDir:  logs[:len(dir)],
		SharedDir: logs[:len(logs)-len(LogDirName)-1],
		LogDir:    logs,
	}, nil
}

// Build creates the allocation directory and its shared directories. It is
// safe to call again on an existing directory. The tasks of an earlier
// run may have replaced one of them with a link: Build refuses it, and
// never follows it.
func (d *AllocDir) Build() error {
	dirs := []dirSpec{
		{SharedAllocName, dirMode},
		{filepath.Join(SharedAllocName, SharedDataName), dirMode},
		{filepath.Join(SharedAllocName, LogDirName), dirMode},
		{filepath.Join(SharedAllocName, TmpDirName), tmpDirMode},
	}
	if err := d.makeDirs(dirs); err != nil {
		return fmt.Errorf("build allocation directory: %w", err)
	}
	// The allocation directory's own name is the client's: its parent is
	// no task's to change.
	if err := os.Chmod(d.AllocDir, dirMode); err != nil {
		return fmt.Errorf("build allocation directory: %w", err)
	}
	return nil
}

// Open opens the allocation directory, for work beneath it that follows
// no link its tasks made (see package beneath).
func (d *AllocDir) Open() (*beneath.Dir, error) {
	return beneath.Open(d.AllocDir)
}

// dirSpec is a directory of the layout, relative to the allocation
// directory, and its mode.
type dirSpec struct {
	rel  string
	mode os.FileMode
}

// makeDirs creates the allocation directory if need be, then each
// directory beneath it, and sets its mode even when it existed or the
// umask narrowed it.
func (d *AllocDir) makeDirs(dirs []dirSpec) error {
	if err := os.MkdirAll(d.AllocDir, dirMode); err != nil {
		return err
	}
	root, err := d.Open()
	if err != nil {
		return err
	}
	defer root.Close()
	for _, spec := range dirs {
		if err := makeDir(root, spec.rel, spec.mode); err != nil {
			return err
		}
	}
	return nil
}

// TaskDir returns the layout of the named task's directory.
func (d *AllocDir) TaskDir(task string) (*TaskDir, error) {
	if err := checkName("task name", task); err != nil {
		return nil, err
	}
	// Dir is a prefix of LocalDir, as in New.
	local := filepath.Join(d.AllocDir, task, TaskLocalName)
	dir := local[:len(local)-len(TaskLocalName)-1]
	return &TaskDir{
		AllocDir:   d.AllocDir,
		Dir:        dir,
		SharedDir:  d.SharedDir,
		LogDir:     d.LogDir,
		LocalDir:   local,
		SecretsDir: filepath.Join(dir, TaskSecretsName),
		TmpDir:     filepath.Join(dir, TmpDirName),
		name:       task,
		alloc:      d,
	}, nil
}

// Destroy removes the allocation directory and everything in it.
func (d *AllocDir) Destroy() error {
	if err := os.RemoveAll(d.AllocDir); err != nil {
		return fmt.Errorf("remove allocation directory %s: %w", d.AllocDir, err)
	}
	return nil
}

// makeDir creates rel beneath root with mode, and sets mode, on the
// directory it opened, even when it existed or the umask narrowed it.
func makeDir(root *beneath.Dir, rel string, mode os.FileMode) error {
	dir, err := root.MkdirAll(rel, mode.Perm())
	if err != nil {
		return err
	}
	defer dir.Close()
	if err := dir.Chmod(mode); err != nil {
		return fmt.Errorf("set mode of %s: %w", dir.Name(), err)
	}
	return nil
}

// checkName rejects a name that would not be a single path element inside
// its parent: empty, ".", "..", or containing a separator.
func checkName(what, name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%s is empty", what)
	case name == "." || name == "..":
		return fmt.Errorf("%s %q is not a valid directory name", what, name)
	case strings.ContainsAny(name, `/\`) || strings.ContainsRune(name, 0):
		return fmt.Errorf("%s %q must not contain a path separator", what, name)
	}
	return nil
}

// ErrOutsideDir is returned for a path that leaves the directory it must
// stay in.
var ErrOutsideDir = errors.New("path leaves its directory")
