//go:build !linux

package allocdir

import (
	"io/fs"
	"os"
	"syscall"
)

// openKnown opens rel for reading once it is known to be readable, and
// returns what it looked at. It is opened without blocking, so that a
// named pipe swapped in after the look cannot hold the caller; Open
// checks that what was opened is what was looked at. (Linux opens
// nothing before its kind is known; see read_open_linux.go.)
func (r *Reader) openKnown(rel string) (*os.File, fs.FileInfo, error) {
	before, err := r.root.Stat(rel)
	if err != nil {
		return nil, nil, err
	}
	if err := readable(rel, before); err != nil {
		return nil, nil, err
	}
	if r.resolved != nil {
		r.resolved(rel)
	}
	f, err := r.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	return f, before, nil
}
