package exec

import (
	"fmt"
	"path"
	"strings"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/drivers/exec/isolate"
	"github.com/drover-io/drover/structs"
)

// MountsVolumes implements drivers.VolumeMounter: a task's host volumes
// are bound into its root.
func (d *Driver) MountsVolumes() bool { return true }

// ownDirs are the directories of the task's root that the driver mounts
// or the client fills: no volume goes on, in or over them.
var ownDirs = []string{"/alloc", "/local", "/secrets", "/proc", "/dev", "/.supervisor"}

// volumes turns the task's host volumes into the isolation's binds. The
// destination is the job author's: a clean absolute path off the
// directories of ownDirs. The task's mounts are private to its mount
// namespace, so only Nomad's default propagation, private, is made.
func volumes(mounts []*drivers.MountConfig) ([]isolate.Volume, error) {
	out := make([]isolate.Volume, 0, len(mounts))
	for _, m := range mounts {
		what := fmt.Sprintf("volume_mount at %q", m.TaskPath)
		if !path.IsAbs(m.TaskPath) || path.Clean(m.TaskPath) != m.TaskPath || m.TaskPath == "/" {
			return nil, fmt.Errorf("%s: the destination must be a clean absolute path other than /", what)
		}
		if m.PropagationMode != "" && m.PropagationMode != structs.VolumeMountPropagationPrivate {
			return nil, fmt.Errorf("%s: propagation_mode %q is not supported by the exec driver, whose mounts are private to the task", what, m.PropagationMode)
		}
		for _, own := range ownDirs {
			if m.TaskPath == own || strings.HasPrefix(m.TaskPath, own+"/") {
				return nil, fmt.Errorf("%s: the destination is the task's %s directory, or in it", what, own)
			}
		}
		out = append(out, isolate.Volume{HostPath: m.HostPath, Dest: m.TaskPath, ReadOnly: m.Readonly})
	}
	return out, nil
}
