package docker

import (
	"fmt"
	"os"

	"github.com/hashicorp/go-hclog"
	"github.com/moby/moby/api/types/mount"

	"github.com/drover-io/drover/drivers"
)

// mounter hands the engine the allocation paths a container binds.
//
// The engine resolves a bind's source path itself when it creates the
// container, by its text, links and all. A task can write its allocation
// directory (its alloc/, local/ and secrets/, and whatever its volumes
// name), so any such path could lead anywhere on the machine by the time
// the engine reads it: a task that leaves alloc -> / gets the machine's
// root in its next run, or in its sibling's. Checking the path first does
// not help; the task can change it after the check.
//
// So the driver resolves each source itself, beneath the allocation
// directory (package beneath: no link out, ever), and bind-mounts what it
// opened, by its descriptor, on a directory of its own under dir, which
// no task can write. The engine is given that directory: whatever the
// task does to its allocation meanwhile, the engine mounts what the
// driver opened. Once the container has started, its mounts are its own
// (they are private to its mount namespace), and the driver's are
// unmounted and removed. A driver that died in between leaves them for
// the next one, which removes them when it starts.
type mounter struct {
	dir    string
	logger hclog.Logger
	// temp is set when dir is the driver's own temporary directory,
	// removed with the driver.
	temp bool
}

// newMounter prepares dir, the directory the driver mounts allocation
// paths under, removing what a driver before it left there. An empty
// dir is a new temporary directory, removed at close.
func newMounter(dir string, logger hclog.Logger) (*mounter, error) {
	m := &mounter{dir: dir, logger: logger}
	if dir == "" {
		var err error
		if m.dir, err = os.MkdirTemp("", "drover-docker-mounts-"); err != nil {
			return nil, fmt.Errorf("create the directory for container mounts: %w", err)
		}
		m.temp = true
		return m, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the directory for container mounts: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, fmt.Errorf("set mode of the directory for container mounts: %w", err)
	}
	m.sweep()
	return m, nil
}

// stage prepares the binds of the container name: host paths as they
// are, allocation paths mounted under the mounter's directory (see
// staging). The returned release removes what stage made; it is called
// once the container has started, or failed to.
func (m *mounter) stage(cfg *drivers.TaskConfig, name string, binds []bindSpec) ([]mount.Mount, func(), error) {
	mounts := make([]mount.Mount, 0, len(binds))
	var s *staging
	release := func() {
		if s != nil {
			s.release(m.logger)
		}
	}
	for i, b := range binds {
		if !b.inAlloc {
			mounts = append(mounts, bind(b.source, b))
			continue
		}
		if s == nil {
			var err error
			if s, err = m.newStaging(cfg, name); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", b.what, err)
			}
		}
		source, err := s.add(i, b)
		if err != nil {
			release()
			return nil, nil, fmt.Errorf("%s: %w", b.what, err)
		}
		mounts = append(mounts, bind(source, b))
	}
	return mounts, release, nil
}

// close removes the mounter's directory if it is its own.
func (m *mounter) close() {
	if m.temp {
		m.sweep()
		if err := os.Remove(m.dir); err != nil {
			m.logger.Warn("failed to remove the directory for container mounts", "dir", m.dir, "error", err)
		}
	}
}
