package allocdir

import (
	"io/fs"
	"os"
	"syscall"

	"github.com/drover-io/drover/internal/beneath"
)

// openKnown opens rel for reading once it is known to be readable, and
// returns what it looked at. Nothing is opened before its kind is known:
// rel is resolved to a descriptor that only names the file (O_PATH,
// beneath the directory, links followed while they stay inside), the
// file it names is looked at, and only then opened, through that
// descriptor. A task that swaps a device or a named pipe in meanwhile
// cannot have it opened: opening a device can act on it.
func (r *Reader) openKnown(rel string) (*os.File, fs.FileInfo, error) {
	p, err := r.dir.OpenPath(rel)
	if err != nil {
		return nil, nil, err
	}
	defer p.Close()
	before, err := p.Stat()
	if err != nil {
		return nil, nil, err
	}
	if err := readable(rel, before); err != nil {
		return nil, nil, err
	}
	if r.resolved != nil {
		r.resolved(rel)
	}
	f, err := beneath.Reopen(p, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY)
	if err != nil {
		return nil, nil, err
	}
	return f, before, nil
}
