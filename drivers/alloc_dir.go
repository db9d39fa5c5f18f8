package drivers

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/drover-io/drover/internal/beneath"
)

// AllocRoot is the allocation's directory, <alloc dir root>/<alloc id>:
// the parent of TaskDir, holding AllocDir and the log files too. Its
// tasks can write everything beneath it; only its own name is the
// client's alone.
func (cfg *TaskConfig) AllocRoot() string {
	if cfg.TaskDir == "" {
		return ""
	}
	return filepath.Dir(cfg.TaskDir)
}

// MkdirInAlloc opens the directory at path (the log directory, the
// driver's state directory in the task directory), which must be inside
// the allocation's directory, making it and those on its way where they
// are missing. It is resolved beneath the allocation's directory and no
// name on the way may be a link (see package beneath): a task cannot make
// a driver write outside its allocation.
func (cfg *TaskConfig) MkdirInAlloc(path string, perm fs.FileMode) (*beneath.Dir, error) {
	return cfg.inAlloc(path, func(root *beneath.Dir, rel string) (*beneath.Dir, error) {
		return root.MkdirAll(rel, perm)
	})
}

// OpenInAlloc opens the directory at path as MkdirInAlloc does, without
// making anything.
func (cfg *TaskConfig) OpenInAlloc(path string) (*beneath.Dir, error) {
	return cfg.inAlloc(path, (*beneath.Dir).OpenDir)
}

// inAlloc opens the allocation's directory and calls open with it and
// path relative to it.
func (cfg *TaskConfig) inAlloc(path string, open func(root *beneath.Dir, rel string) (*beneath.Dir, error)) (*beneath.Dir, error) {
	root := cfg.AllocRoot()
	if root == "" {
		return nil, errors.New("the task has no allocation directory")
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("%s is not inside the allocation directory %s", path, root)
	}
	dir, err := beneath.Open(root)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	return open(dir, rel)
}
