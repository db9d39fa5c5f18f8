package docker

import (
	"fmt"
	"path/filepath"

	"github.com/moby/moby/api/types/mount"

	"github.com/drover-io/drover/drivers"
)

// bindSpec is one bind mount of a task's container, as the task config
// and the allocation's layout ask for it.
type bindSpec struct {
	// source is relative to the allocation directory when inAlloc; else
	// it is an absolute path of the machine's, which only a node whose
	// plugin config enables volumes allows.
	source  string
	inAlloc bool
	// followLinks: a volume's source, as the job names it, may lead
	// through links that stay inside the allocation; the task's own
	// directories, which the client made, may not be links at all.
	followLinks bool
	target      string
	readOnly    bool
	// what names the mount in errors.
	what string
}

// containerBinds mounts the task's directories where Nomad does, and the
// task's volumes: a relative source is inside the task directory and
// must stay in the allocation; an absolute one needs volumes enabled.
func containerBinds(cfg *drivers.TaskConfig, volumes []volumeSpec, volumesEnabled bool) ([]bindSpec, error) {
	var binds []bindSpec
	own := func(path, target, what string) error {
		rel, err := filepath.Rel(cfg.AllocRoot(), path)
		if cfg.TaskDir == "" || err != nil || !filepath.IsLocal(rel) {
			return fmt.Errorf("%s %s is not inside the allocation directory", what, path)
		}
		binds = append(binds, bindSpec{source: rel, inAlloc: true, target: target, what: what})
		return nil
	}
	if cfg.AllocDir != "" {
		if err := own(cfg.AllocDir, containerAllocDir, "the allocation's alloc directory"); err != nil {
			return nil, err
		}
	}
	if cfg.TaskDir != "" {
		if err := own(filepath.Join(cfg.TaskDir, "local"), containerLocalDir, "the task's local directory"); err != nil {
			return nil, err
		}
		if err := own(filepath.Join(cfg.TaskDir, "secrets"), containerSecretsDir, "the task's secrets directory"); err != nil {
			return nil, err
		}
	}
	for i, v := range volumes {
		b := bindSpec{source: v.Source, target: v.Target, readOnly: v.ReadOnly,
			what: fmt.Sprintf(`config key "volumes": entry %d (%q)`, i, v.Source)}
		if filepath.IsAbs(v.Source) {
			if !volumesEnabled {
				return nil, fmt.Errorf(`config key "volumes": entry %d: host path %q needs volumes enabled on this node (plugin "docker" config volumes { enabled = true })`, i, v.Source)
			}
			binds = append(binds, b)
			continue
		}
		// Relative to the task directory, and so to the allocation
		// directory from the task's name on.
		rel := filepath.Join(filepath.Base(cfg.TaskDir), v.Source)
		if cfg.TaskDir == "" || !filepath.IsLocal(rel) {
			return nil, fmt.Errorf(`config key "volumes": entry %d: %q leaves the allocation directory`, i, v.Source)
		}
		b.source, b.inAlloc, b.followLinks = rel, true, true
		binds = append(binds, b)
	}
	return binds, nil
}

func bind(src, dst string, readOnly bool) mount.Mount {
	return mount.Mount{Type: mount.TypeBind, Source: src, Target: dst, ReadOnly: readOnly}
}
