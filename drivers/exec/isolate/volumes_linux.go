package isolate

import (
	"fmt"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/drover-io/drover/internal/beneath"
)

// bindVolumes binds each host volume at its destination in root,
// read-only where asked. The mount point is made and opened beneath the
// root, which the task could have filled with links in an earlier run:
// it can only ever land inside the task's own tree.
func bindVolumes(root *beneath.Dir, volumes []Volume) error {
	for _, v := range volumes {
		rel := strings.TrimPrefix(v.Dest, "/")
		if rel == "" {
			return fmt.Errorf("volume %s: cannot replace the task's root", v.HostPath)
		}
		fd, err := cloneTree(unix.AT_FDCWD, v.HostPath, v.ReadOnly)
		if err != nil {
			return fmt.Errorf("volume %s: %w", v.HostPath, err)
		}
		if err := mountAt(root, rel, fd); err != nil {
			return fmt.Errorf("volume %s at %s: %w", v.HostPath, v.Dest, err)
		}
	}
	return nil
}
