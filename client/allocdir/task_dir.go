package allocdir

import (
	"fmt"
	"os"
	"path/filepath"
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

	name string
}

// Build creates the task directory and its subdirectories. It is safe to
// call again on an existing directory.
func (t *TaskDir) Build() error {
	dirs := []struct {
		path string
		mode os.FileMode
	}{
		{t.Dir, dirMode},
		{t.LocalDir, dirMode},
		{t.SecretsDir, secretsDirMode},
		{t.TmpDir, tmpDirMode},
	}
	for _, dir := range dirs {
		if err := makeDir(dir.path, dir.mode); err != nil {
			return fmt.Errorf("build directory of task %q: %w", t.name, err)
		}
	}
	return nil
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
func (t *TaskDir) GiveTo(owner Owner) error {
	for _, dir := range []string{t.Dir, t.LocalDir, t.SecretsDir, t.TmpDir} {
		if err := os.Lchown(dir, owner.UID, owner.GID); err != nil {
			return fmt.Errorf("give directory of task %q to uid %d: %w", t.name, owner.UID, err)
		}
	}
	if err := makeDir(filepath.Join(t.SharedDir, SharedDataName), tmpDirMode); err != nil {
		return fmt.Errorf("share the data directory with task %q: %w", t.name, err)
	}
	return nil
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
