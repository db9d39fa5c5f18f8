//go:build !linux

package docker

import (
	"errors"

	"github.com/hashicorp/go-hclog"

	"github.com/drover-io/drover/drivers"
)

// errNoMounts: only Linux has the mounts the driver hands the engine an
// allocation's directories with (see mounter).
var errNoMounts = errors.New("the docker driver mounts the allocation's directories into containers on Linux only")

type staging struct{}

func (m *mounter) newStaging(*drivers.TaskConfig, string) (*staging, error) {
	return nil, errNoMounts
}

func (s *staging) add(int, bindSpec) (string, error) { return "", errNoMounts }

func (s *staging) release(hclog.Logger) {}

func (m *mounter) sweep() {}

func canMount() error { return errNoMounts }
