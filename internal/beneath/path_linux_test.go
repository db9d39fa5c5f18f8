package beneath

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/waitfor"
)

func TestOpenPath_FollowsLinksThatStayInside(t *testing.T) {
	l := newLayout(t)
	must.NoError(t, os.MkdirAll(filepath.Join(l.dir, "alloc/data/v1"), 0o755))
	must.NoError(t, os.WriteFile(filepath.Join(l.dir, "alloc/data/v1/f"), []byte("inside"), 0o644))
	l.symlink(t, "data/v1", "alloc/current")
	l.symlink(t, "../alloc/current", "web/cur")

	f, err := l.d.OpenPath("web/../web/cur/f")
	must.NoError(t, err)
	defer f.Close()
	r, err := Reopen(f, os.O_RDONLY)
	must.NoError(t, err)
	defer r.Close()
	b, err := io.ReadAll(r)
	must.NoError(t, err)
	must.Eq(t, "inside", string(b))
}

func TestOpenPath_RefusesLinksOut(t *testing.T) {
	l := newLayout(t)
	l.symlink(t, l.outside, "alloc/abs")          // absolute
	l.symlink(t, "/", "alloc/root")               // the host's root
	l.symlink(t, "../../../../../..", "alloc/up") // climbs out
	for _, rel := range []string{"alloc/abs", "alloc/abs/sentinel", "alloc/root", "alloc/up", "../x", "/etc"} {
		_, err := l.d.OpenPath(rel)
		must.ErrorIs(t, err, ErrEscapes, must.Sprintf("open %s", rel))
	}
	l.untouched(t)
}

// TestOpenPath_OpensNothing holds a writer blocked on a named pipe: a
// pipe opened for reading would release it. OpenPath names the pipe
// without opening it.
func TestOpenPath_OpensNothing(t *testing.T) {
	l := newLayout(t)
	fifo := filepath.Join(l.dir, "fifo")
	must.NoError(t, syscall.Mkfifo(fifo, 0o644))
	opened := make(chan struct{})
	go func() {
		// Blocks until a reader opens the pipe; the test's clean-up
		// opens one last.
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		close(opened)
	}()
	t.Cleanup(func() {
		if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			<-opened
			r.Close()
		}
	})

	f, err := l.d.OpenPath("fifo")
	must.NoError(t, err)
	defer f.Close()
	fi, err := f.Stat()
	must.NoError(t, err)
	must.True(t, fi.Mode()&os.ModeNamedPipe != 0)
	waitfor.Always(t, "the pipe stays unopened", 200*time.Millisecond, func() bool {
		select {
		case <-opened:
			return false
		default:
			return true
		}
	})
}
