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
	// propagation is the mount's bind_options.propagation, "" for the
	// engine's default.
	propagation string
	// what names the mount in errors.
	what string
}

// containerBinds mounts the task's directories where Nomad does, and the
// task's volumes and bind mounts (see userBind).
func containerBinds(cfg *drivers.TaskConfig, conf *taskConfig, volumesEnabled bool) ([]bindSpec, error) {
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
	for i, v := range conf.Volumes {
		what := fmt.Sprintf(`config key "volumes": entry %d`, i)
		b, err := userBind(cfg, v.Source, v.Target, v.ReadOnly, "", what, volumesEnabled)
		if err != nil {
			return nil, err
		}
		binds = append(binds, b)
	}
	for _, m := range conf.Mounts {
		if m.Type != "bind" {
			continue
		}
		b, err := userBind(cfg, m.Source, m.Target, m.ReadOnly, m.Propagation, m.what, volumesEnabled)
		if err != nil {
			return nil, err
		}
		binds = append(binds, b)
	}
	return binds, nil
}

// userBind is a bind the job asks for, by a `volumes` entry or a `mount`
// block. A relative source is inside the task directory, as in Nomad; it
// and an absolute one inside the allocation directory (where
// ${NOMAD_TASK_DIR} interpolation leads) must stay in the allocation, and
// are resolved beneath it. Any other absolute source is a host path,
// which needs volumes enabled.
func userBind(cfg *drivers.TaskConfig, source, target string, readOnly bool, propagation, what string, volumesEnabled bool) (bindSpec, error) {
	b := bindSpec{source: source, target: target, readOnly: readOnly, propagation: propagation,
		what: fmt.Sprintf("%s (%q)", what, source)}
	rel := filepath.Join(filepath.Base(cfg.TaskDir), source)
	if filepath.IsAbs(source) {
		r, err := filepath.Rel(cfg.AllocRoot(), filepath.Clean(source))
		if cfg.TaskDir == "" || err != nil || !filepath.IsLocal(r) {
			if !volumesEnabled {
				return bindSpec{}, fmt.Errorf(`%s: host path %q is not allowed on this node (%s)`, what, source, optVolumes)
			}
			return b, nil
		}
		rel = r
	}
	if cfg.TaskDir == "" || !filepath.IsLocal(rel) {
		return bindSpec{}, fmt.Errorf(`%s: %q leaves the allocation directory`, what, source)
	}
	b.source, b.inAlloc, b.followLinks = rel, true, true
	return b, nil
}

func bind(src string, b bindSpec) mount.Mount {
	m := mount.Mount{Type: mount.TypeBind, Source: src, Target: b.target, ReadOnly: b.readOnly}
	if b.propagation != "" {
		m.BindOptions = &mount.BindOptions{Propagation: mount.Propagation(b.propagation)}
	}
	return m
}
