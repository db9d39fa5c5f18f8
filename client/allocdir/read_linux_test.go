package allocdir

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/shoenig/test/must"
	"golang.org/x/sys/unix"
)

// TestReader_SwappedFileIsNeverOpened: a task swaps a named pipe (or a
// device: opening one can act on it) in for a log file between the
// Reader's look at the file and its open. The Reader must open the file
// it looked at, or nothing; inotify tells whether anything opened the
// pipe.
func TestReader_SwappedFileIsNeverOpened(t *testing.T) {
	dir, r := testReader(t)
	logs := filepath.Join(dir, "alloc", "logs")
	must.NoError(t, os.MkdirAll(logs, 0o755))
	path := filepath.Join(logs, "web.stdout.0")
	must.NoError(t, os.WriteFile(path, []byte("the allocation's"), 0o644))
	fifo := filepath.Join(dir, "fifo")
	must.NoError(t, syscall.Mkfifo(fifo, 0o644))

	in, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	must.NoError(t, err)
	defer unix.Close(in)
	_, err = unix.InotifyAddWatch(in, fifo, unix.IN_OPEN)
	must.NoError(t, err)

	r.resolved = func(string) { must.NoError(t, os.Rename(fifo, path)) }
	f, _, err := openWithin(t, r, "alloc/logs/web.stdout.0")

	var buf [4096]byte
	n, rerr := unix.Read(in, buf[:])
	must.True(t, errors.Is(rerr, unix.EAGAIN), must.Sprintf("the pipe was opened (%d bytes of inotify events)", n))
	must.NoError(t, err)
	data, err := io.ReadAll(f)
	must.NoError(t, err)
	must.Eq(t, "the allocation's", string(data), must.Sprint("the file looked at is the file read"))
}
