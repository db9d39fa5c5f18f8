package allocdir

import (
	"fmt"
	"path/filepath"

	"github.com/drover-io/drover/internal/beneath"
)

// TaskDir is one task's directory within its allocation directory.
type TaskDir struct {
	// AllocDir is the allocation directory the task's is in.
	AllocDir string
	// Dir is <alloc dir>/<task>.
	Dir string
	// SharedDir and LogDir are the allocation's alloc/ and alloc/logs.
	SharedDir string
	LogDir    string
	// LocalDir, SecretsDir and TmpDir are the task's local/, secrets/ and
	// tmp/.
	LocalDir   string
	SecretsDir string
	TmpDir     string

	name  string
	alloc *AllocDir
}

// Build creates the task directory and its subdirectories. It is safe to
// call again on an existing directory; one that a task replaced with a
// link is refused, never followed (see AllocDir.Build).
func (t *TaskDir) Build() error {
	dirs := []dirSpec{
		{t.name, dirMode},
		{filepath.Join(t.name, TaskLocalName), dirMode},
		{filepath.Join(t.name, TaskSecretsName), secretsDirMode},
		{filepath.Join(t.name, TmpDirName), tmpDirMode},
	}
	if err := t.alloc.makeDirs(dirs); err != nil {
		return fmt.Errorf("build directory of task %q: %w", t.name, err)
	}
	return nil
}

// Open opens sub, a path relative to the task directory ("" for the task
// directory itself), beneath the allocation directory: no name on the
// way may be a link (see package beneath).
func (t *TaskDir) Open(sub string) (*beneath.Dir, error) {
	root, err := t.alloc.Open()
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return root.OpenDir(filepath.Join(t.name, sub))
}

// Owner is a task's user, as its directories are to be owned.
type Owner struct {
	UID, GID int
}

// GiveTo makes the task's directories (the task directory, local/,
// secrets/ and tmp/) the owner's, for a task that runs as that user, and
// makes the shared alloc/data writable by every task of the allocation,
// whichever user it runs as: sticky, as alloc/tmp, so that a task cannot
// remove another's files. secrets/ keeps its mode, private to its owner.
// The agent must be root.
//
// Each directory is opened beneath the allocation directory, following no
// link, and changed through what was opened: a task that replaced one of
// them with a link to a directory of the machine gets an error, not that
// directory.
func (t *TaskDir) GiveTo(owner Owner) error {
	root, err := t.alloc.Open()
	if err != nil {
		return fmt.Errorf("give directory of task %q to uid %d: %w", t.name, owner.UID, err)
	}
	defer root.Close()
	for _, sub := range []string{"", TaskLocalName, TaskSecretsName, TmpDirName} {
		if err := chownDir(root, filepath.Join(t.name, sub), owner); err != nil {
			return fmt.Errorf("give directory of task %q to uid %d: %w", t.name, owner.UID, err)
		}
	}
	if err := makeDir(root, filepath.Join(SharedAllocName, SharedDataName), tmpDirMode); err != nil {
		return fmt.Errorf("share the data directory with task %q: %w", t.name, err)
	}
	return nil
}

// chownDir gives the directory rel, beneath root, to owner.
func chownDir(root *beneath.Dir, rel string, owner Owner) error {
	dir, err := root.OpenDir(rel)
	if err != nil {
		return err
	}
	defer dir.Close()
	return dir.Chown(owner.UID, owner.GID)
}

// LogPaths returns the base paths of the task's stdout and stderr logs; the
// driver appends .0, .1, ... as it rotates them.
func (t *TaskDir) LogPaths() (stdout, stderr string) {
	return filepath.Join(t.LogDir, t.name+".stdout"), filepath.Join(t.LogDir, t.name+".stderr")
}

// Resolve takes rel, a path relative to the task directory, and returns
// it relative to the allocation directory; an error wrapping
// ErrOutsideDir when rel is absolute or leaves the allocation directory.
// A task's paths may reach beside the task directory, into the shared
// alloc/ ("../alloc/data") and the other tasks' directories, as Nomad's
// do.
func (t *TaskDir) Resolve(rel string) (string, error) {
	if filepath.IsAbs(rel) {
		return "", fmt.Errorf("%q is absolute: %w %s", rel, ErrOutsideDir, t.AllocDir)
	}
	inAlloc := filepath.Join(t.name, rel)
	if !filepath.IsLocal(inAlloc) {
		return "", fmt.Errorf("%q: %w %s", rel, ErrOutsideDir, t.AllocDir)
	}
	return inAlloc, nil
}
