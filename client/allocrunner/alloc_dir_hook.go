package allocrunner

import (
	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/internal/lazylog"
)

// allocDirHook builds the allocation directory before the tasks run and
// removes it when the allocation is destroyed. Task directories are built
// by each task's own task dir hook.
type allocDirHook struct {
	dir    *allocdir.AllocDir
	logger hclog.Logger
}

func newAllocDirHook(dir *allocdir.AllocDir, logger hclog.Logger) *allocDirHook {
	return &allocDirHook{dir: dir, logger: lazylog.New(logger, "alloc_dir")}
}

func (*allocDirHook) Name() string { return "alloc_dir" }

func (h *allocDirHook) Prerun() error {
	return h.dir.Build()
}

func (h *allocDirHook) Destroy() error {
	return h.dir.Destroy()
}
