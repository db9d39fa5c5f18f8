package docker

import (
	"fmt"
	"path"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
)

// MountsVolumes implements drivers.VolumeMounter: a task's host volumes
// are bind mounts of its container.
func (d *Driver) MountsVolumes() bool { return true }

// enginePropagation maps a volume_mount's propagation mode to the
// engine's, recursive as Nomad's docker driver makes them; no mode is
// private.
var enginePropagation = map[string]string{
	"":                                       "rprivate",
	structs.VolumeMountPropagationPrivate:    "rprivate",
	structs.VolumeMountPropagationHostToTask: "rslave",
	structs.VolumeMountPropagationBidirectional: "rshared",
}

// hostVolumeBinds turns the task's host volumes into binds. The host
// path is the client operator's (a host_volume block), so it is bound as
// it is; the destination is the job author's, and is kept off the
// directories the driver mounts from the allocation, so that no volume
// lands on (or is reached through) a directory the task can write on the
// host.
func hostVolumeBinds(cfg *drivers.TaskConfig) ([]bindSpec, error) {
	out := make([]bindSpec, 0, len(cfg.Mounts))
	for _, m := range cfg.Mounts {
		what := fmt.Sprintf("volume_mount at %q", m.TaskPath)
		if !path.IsAbs(m.TaskPath) || path.Clean(m.TaskPath) != m.TaskPath || m.TaskPath == "/" {
			return nil, fmt.Errorf("%s: the destination must be a clean absolute path other than /", what)
		}
		propagation, ok := enginePropagation[m.PropagationMode]
		if !ok {
			return nil, fmt.Errorf("%s: propagation_mode %q is not %q, %q or %q", what, m.PropagationMode,
				structs.VolumeMountPropagationPrivate, structs.VolumeMountPropagationHostToTask, structs.VolumeMountPropagationBidirectional)
		}
		for _, own := range []string{containerAllocDir, containerLocalDir, containerSecretsDir} {
			if m.TaskPath == own || isUnder(m.TaskPath, own) || isUnder(own, m.TaskPath) {
				return nil, fmt.Errorf("%s: the destination overlaps the task's %s directory", what, own)
			}
		}
		out = append(out, bindSpec{source: m.HostPath, target: m.TaskPath, readOnly: m.Readonly, propagation: propagation, what: what})
	}
	return out, nil
}

// isUnder reports whether p is below dir (both clean and absolute).
func isUnder(p, dir string) bool {
	return len(p) > len(dir) && p[:len(dir)] == dir && (dir == "/" || p[len(dir)] == '/')
}
