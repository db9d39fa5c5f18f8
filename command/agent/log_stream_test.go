package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/internal/waitfor"
)

// recordSink keeps what a log stream sends.
type recordSink struct {
	mu     sync.Mutex
	buf    strings.Builder
	files  []string
	events []string
	idles  int
}

func (r *recordSink) record(file string, b []byte) {
	r.buf.Write(b)
	if n := len(r.files); n == 0 || r.files[n-1] != file {
		r.files = append(r.files, file)
	}
}

func (r *recordSink) data(file string, b []byte, _ int64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record(file, b)
	return nil
}

func (r *recordSink) event(file, ev string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, file+": "+ev)
	return nil
}

func (r *recordSink) idle() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.idles++
	return nil
}

func (r *recordSink) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.buf.String()
}

// testLogDir makes an allocation directory with its alloc/logs, and
// returns that logs directory and a reader of the allocation directory.
func testLogDir(t *testing.T) (string, *allocdir.Reader) {
	t.Helper()
	allocDir := t.TempDir()
	logs := filepath.Join(allocDir, "alloc", "logs")
	must.NoError(t, os.MkdirAll(logs, 0o755))
	r, err := allocdir.OpenReader(allocDir)
	must.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	return logs, r
}

func writeLog(t *testing.T, dir, name, content string) {
	t.Helper()
	must.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
}

func TestLogFiles_Seek(t *testing.T) {
	dir, reader := testLogDir(t)
	writeLog(t, dir, "web.stdout.0", "0123456789")
	writeLog(t, dir, "web.stdout.1", "abcdefghij")
	writeLog(t, dir, "web.stdout.2", "ABCDE")
	writeLog(t, dir, "web.stdout.x", "ignored")
	writeLog(t, dir, "web.stdout.01", "ignored")
	writeLog(t, dir, "web.stderr.7", "other stream")
	files := logFiles{dir: reader, base: "web.stdout"}

	idx, err := files.indexes()
	must.NoError(t, err)
	must.Eq(t, []int{0, 1, 2}, idx)

	cases := []struct {
		origin    string
		offset    int64
		wantIndex int
		wantPos   int64
	}{
		{originStart, 0, 0, 0},
		{originStart, 9, 0, 9},
		{originStart, 10, 1, 0},
		{originStart, 24, 2, 4},
		{originStart, 1000, 2, 5},
		{originEnd, 0, 2, 5},
		{originEnd, 5, 2, 0},
		{originEnd, 6, 1, 9},
		{originEnd, 25, 0, 0},
		{originEnd, 1000, 0, 0},
	}
	for _, tc := range cases {
		i, pos, err := files.seek(tc.origin, tc.offset)
		must.NoError(t, err)
		must.Eq(t, tc.wantIndex, i, must.Sprintf("%s %d", tc.origin, tc.offset))
		must.Eq(t, tc.wantPos, pos, must.Sprintf("%s %d", tc.origin, tc.offset))
	}

	noLogs, err := allocdir.OpenReader(t.TempDir())
	must.NoError(t, err)
	defer noLogs.Close()
	empty := logFiles{dir: noLogs, base: "web.stdout"}
	i, pos, err := empty.seek(originEnd, 10)
	must.NoError(t, err)
	must.Eq(t, 0, i)
	must.Eq(t, int64(0), pos)
}

func TestLogStream_ReadsAcrossRotatedFiles(t *testing.T) {
	dir, reader := testLogDir(t)
	writeLog(t, dir, "web.stdout.3", "first ")
	writeLog(t, dir, "web.stdout.4", "second ")
	writeLog(t, dir, "web.stdout.5", "third")
	files := logFiles{dir: reader, base: "web.stdout"}
	i, pos, err := files.seek(originStart, 3)
	must.NoError(t, err)

	sink := &recordSink{}
	s := &logStream{files: files, index: i, pos: pos, taskDead: func() bool { return true }}
	must.NoError(t, s.run(context.Background(), sink))
	must.Eq(t, "st second third", sink.text())
	must.Eq(t, []string{"alloc/logs/web.stdout.3", "alloc/logs/web.stdout.4", "alloc/logs/web.stdout.5"}, sink.files)
}

func TestLogStream_FollowsRotationUntilTaskDies(t *testing.T) {
	dir, reader := testLogDir(t)
	writeLog(t, dir, "web.stdout.0", "a")
	files := logFiles{dir: reader, base: "web.stdout"}
	var dead atomic.Bool
	sink := &recordSink{}
	s := &logStream{files: files, follow: true, taskDead: dead.Load}

	done := make(chan error, 1)
	go func() { done <- s.run(context.Background(), sink) }()

	waitText := func(want string) {
		t.Helper()
		waitfor.NoError(t, fmt.Sprintf("the stream to hold %q", want), func() error {
			if got := sink.text(); got != want {
				return fmt.Errorf("stream has %q", got)
			}
			return nil
		})
	}
	waitText("a")
	f, err := os.OpenFile(filepath.Join(dir, "web.stdout.0"), os.O_APPEND|os.O_WRONLY, 0)
	must.NoError(t, err)
	_, err = f.WriteString("b")
	must.NoError(t, err)
	must.NoError(t, f.Close())
	waitText("ab")
	// The driver rotates: the stream moves to the new file.
	writeLog(t, dir, "web.stdout.1", "c")
	waitText("abc")
	select {
	case err := <-done:
		t.Fatalf("stream ended while the task runs: %v", err)
	default:
	}
	// Written just before the task died: still sent, then the stream ends.
	writeLog(t, dir, "web.stdout.2", "d")
	dead.Store(true)
	select {
	case err := <-done:
		must.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("stream did not end after the task died")
	}
	must.Eq(t, "abcd", sink.text())
}

func TestLogStream_ReportsTruncationAndDeletion(t *testing.T) {
	dir, reader := testLogDir(t)
	writeLog(t, dir, "web.stdout.0", "0123456789")
	files := logFiles{dir: reader, base: "web.stdout"}

	// Truncated below the read position: start over, with an event.
	sink := &recordSink{}
	s := &logStream{files: files, pos: 10, taskDead: func() bool { return true }}
	writeLog(t, dir, "web.stdout.0", "xy")
	must.NoError(t, s.run(context.Background(), sink))
	must.Eq(t, "xy", sink.text())
	must.Eq(t, []string{"alloc/logs/web.stdout.0: file truncated"}, sink.events)

	// Rotated away before it was read: skip to the next file.
	must.NoError(t, os.Remove(filepath.Join(dir, "web.stdout.0")))
	writeLog(t, dir, "web.stdout.1", "next")
	sink = &recordSink{}
	s = &logStream{files: files, pos: 2, taskDead: func() bool { return true }}
	must.NoError(t, s.run(context.Background(), sink))
	must.Eq(t, "next", sink.text())
	must.Eq(t, []string{"alloc/logs/web.stdout.0: file deleted"}, sink.events)
}

func TestLogStream_StopsWithContext(t *testing.T) {
	_, reader := testLogDir(t)
	files := logFiles{dir: reader, base: "web.stdout"}
	ctx, cancel := context.WithCancel(context.Background())
	sink := &recordSink{}
	s := &logStream{files: files, follow: true, taskDead: func() bool { return false }}
	done := make(chan error, 1)
	go func() { done <- s.run(ctx, sink) }()
	cancel()
	select {
	case err := <-done:
		must.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("stream did not stop with its context")
	}
}
