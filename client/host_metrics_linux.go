package client

import (
	"fmt"
	"syscall"
)

// statDisk reads the size and use of the filesystem that holds path.
func statDisk(path string) (diskUsage, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return diskUsage{}, fmt.Errorf("statfs %s: %w", path, err)
	}
	// Frsize is the unit of the block counts; Bsize, the preferred I/O
	// size, is the same on most filesystems but not all.
	unit := uint64(st.Frsize)
	if unit == 0 {
		unit = uint64(st.Bsize)
	}
	return diskUsage{
		size:       st.Blocks * unit,
		used:       (st.Blocks - st.Bfree) * unit,
		available:  st.Bavail * unit,
		inodes:     st.Files,
		inodesFree: st.Ffree,
	}, nil
}
