package client

import (
	"os"
	"syscall"
	"testing"

	"github.com/shoenig/test/must"
)

// The reader agrees with the kernel about this very process.
func TestProcReader_Self(t *testing.T) {
	var r procReader
	st, err := r.stat(os.Getpid())
	must.NoError(t, err)
	pgid, err := syscall.Getpgid(os.Getpid())
	must.NoError(t, err)
	must.Eq(t, pgid, st.pgid)
	must.Positive(t, st.startTime)

	rss, err := r.rss(os.Getpid(), uint64(os.Getpagesize()))
	must.NoError(t, err)
	must.Greater(t, uint64(1<<20), rss, must.Sprint("a Go test binary holds more than 1 MiB"))

	_, err = r.stat(0) // no such process directory
	must.Error(t, err)

	// Reading much, the reader allocates little: one path string each.
	allocs := testing.AllocsPerRun(100, func() { _, _ = r.stat(os.Getpid()) })
	must.LessEq(t, 3.0, allocs)
}
