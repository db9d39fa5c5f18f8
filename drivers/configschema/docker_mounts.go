package configschema

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/drover-io/drover/drivers/shared/taskconfig"
)

// DockerMount is one `mount` block (or `mounts` entry) of a docker task,
// with Nomad's keys: a bind mount, a volume of the engine's or a tmpfs.
type DockerMount struct {
	// Type is "bind", "volume" (the default, as in Nomad) or "tmpfs".
	Type     string
	Source   string
	Target   string
	ReadOnly bool
	// Propagation is bind_options.propagation.
	Propagation string
	// TmpfsSize (bytes) and TmpfsMode are tmpfs_options.
	TmpfsSize int64
	TmpfsMode os.FileMode
	// NoCopy, Labels, Driver and DriverOptions are volume_options.
	NoCopy        bool
	Labels        map[string]string
	Driver        string
	DriverOptions map[string]string
}

var mountKeys = []string{"type", "source", "target", "readonly", "bind_options", "tmpfs_options", "volume_options"}

// ParseDockerMounts reads the `mount` blocks or the `mounts` list: one
// block or a list of them.
func ParseDockerMounts(v any) ([]DockerMount, error) {
	entries, err := blockList(v)
	if err != nil {
		return nil, err
	}
	out := make([]DockerMount, 0, len(entries))
	var errs []error
	for i, e := range entries {
		m, err := parseDockerMount(e)
		if err != nil {
			errs = append(errs, fmt.Errorf("entry %d: %w", i, err))
			continue
		}
		out = append(out, m)
	}
	return out, errors.Join(errs...)
}

func parseDockerMount(b taskconfig.Map) (DockerMount, error) {
	r := taskconfig.NewReader(b, mountKeys...)
	m := DockerMount{
		Type:     r.String("type"),
		Source:   r.String("source"),
		Target:   r.String("target"),
		ReadOnly: r.Bool("readonly"),
	}
	if m.Type == "" {
		m.Type = "volume"
	}
	if r.Has("bind_options") {
		m.Propagation = r.Child("bind_options", "propagation").String("propagation")
	}
	if r.Has("tmpfs_options") {
		t := r.Child("tmpfs_options", "size", "mode")
		m.TmpfsSize = int64(t.Int("size"))
		m.TmpfsMode = os.FileMode(t.Int("mode"))
	}
	if r.Has("volume_options") {
		vo := r.Child("volume_options", "no_copy", "labels", "driver_config")
		m.NoCopy = vo.Bool("no_copy")
		m.Labels = vo.StringMap("labels")
		if vo.Has("driver_config") {
			dc := vo.Child("driver_config", "name", "options")
			m.Driver = dc.String("name")
			m.DriverOptions = dc.StringMap("options")
		}
	}
	if err := r.Err(); err != nil {
		return m, err
	}
	return m, m.check()
}

func (m DockerMount) check() error {
	if !strings.HasPrefix(m.Target, "/") {
		return fmt.Errorf("target %q is not an absolute path", m.Target)
	}
	switch m.Type {
	case "bind":
		if m.Source == "" {
			return errors.New(`a bind mount needs a source`)
		}
	case "volume":
	case "tmpfs":
		if m.Source != "" {
			return fmt.Errorf(`a tmpfs mount takes no source, got %q`, m.Source)
		}
		if m.TmpfsSize < 0 {
			return fmt.Errorf("tmpfs_options.size must not be negative, got %d", m.TmpfsSize)
		}
	default:
		return fmt.Errorf(`type %q is none of "bind", "volume", "tmpfs"`, m.Type)
	}
	if m.Propagation != "" && m.Type != "bind" {
		return fmt.Errorf("bind_options are for bind mounts, not %q", m.Type)
	}
	switch m.Propagation {
	case "", "private", "rprivate", "shared", "rshared", "slave", "rslave":
	default:
		return fmt.Errorf("bind_options.propagation %q is none of private, rprivate, shared, rshared, slave, rslave", m.Propagation)
	}
	return nil
}

func checkMounts(v any) error {
	_, err := ParseDockerMounts(v)
	return err
}

// DockerDevice is one `devices` block: a host device the container gets.
type DockerDevice struct {
	HostPath, ContainerPath string
	// CgroupPermissions are some of "rwm"; empty is all of them.
	CgroupPermissions string
}

// ParseDockerDevices reads the `devices` blocks. The container path
// defaults to the host path, the permissions to "rwm", as in Nomad.
func ParseDockerDevices(v any) ([]DockerDevice, error) {
	entries, err := blockList(v)
	if err != nil {
		return nil, err
	}
	out := make([]DockerDevice, 0, len(entries))
	var errs []error
	for i, e := range entries {
		d, err := parseDockerDevice(e)
		if err != nil {
			errs = append(errs, fmt.Errorf("entry %d: %w", i, err))
			continue
		}
		out = append(out, d)
	}
	return out, errors.Join(errs...)
}

func parseDockerDevice(b taskconfig.Map) (DockerDevice, error) {
	r := taskconfig.NewReader(b, "host_path", "container_path", "cgroup_permissions")
	d := DockerDevice{HostPath: r.String("host_path"), ContainerPath: r.String("container_path"), CgroupPermissions: r.String("cgroup_permissions")}
	if d.ContainerPath == "" {
		d.ContainerPath = d.HostPath
	}
	if d.CgroupPermissions == "" {
		d.CgroupPermissions = "rwm"
	}
	switch {
	case r.Err() != nil:
		return d, r.Err()
	case !strings.HasPrefix(d.HostPath, "/"):
		return d, fmt.Errorf("host_path %q is not an absolute path", d.HostPath)
	case !strings.HasPrefix(d.ContainerPath, "/"):
		return d, fmt.Errorf("container_path %q is not an absolute path", d.ContainerPath)
	case strings.Trim(d.CgroupPermissions, "rwm") != "" || len(d.CgroupPermissions) > 3:
		return d, fmt.Errorf("cgroup_permissions %q is not made of r, w and m", d.CgroupPermissions)
	}
	return d, nil
}

func checkDevices(v any) error {
	_, err := ParseDockerDevices(v)
	return err
}

// blockList reads repeated blocks: a list of maps, or one map.
func blockList(v any) ([]taskconfig.Map, error) {
	switch l := v.(type) {
	case map[string]any:
		return []taskconfig.Map{l}, nil
	case []map[string]any:
		out := make([]taskconfig.Map, len(l))
		for i, m := range l {
			out[i] = m
		}
		return out, nil
	case []any:
		out := make([]taskconfig.Map, len(l))
		for i, e := range l {
			m, ok := e.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("entry %d: want a block, got %T", i, e)
			}
			out[i] = m
		}
		return out, nil
	}
	return nil, fmt.Errorf("want blocks, got %T", v)
}
