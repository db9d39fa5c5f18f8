//go:build linux || darwin

package allocdir

import (
	"io/fs"
	"syscall"
	"time"
)

// linkCount is the number of hard links to the file fi describes.
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// changeTime is when the file fi describes last changed its metadata,
// its links among them.
func changeTime(fi fs.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		ts := ctime(st)
		return time.Unix(ts.Unix())
	}
	return time.Time{}
}
