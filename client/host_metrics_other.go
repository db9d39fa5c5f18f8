//go:build !linux

package client

import (
	"errors"
	"fmt"
)

// statDisk is not implemented off Linux: the disk gauges are skipped.
func statDisk(path string) (diskUsage, error) {
	return diskUsage{}, fmt.Errorf("statfs %s: %w", path, errors.ErrUnsupported)
}
