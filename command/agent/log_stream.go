package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/drover-io/drover/client/allocdir"
)

// Timing of a followed log: how often it looks for new output, and how
// often an idle framed stream sends a heartbeat frame so that proxies and
// clients know it is alive.
const (
	logPollInterval   = 100 * time.Millisecond
	logHeartbeatEvery = 10 * time.Second
	logReadChunk      = 64 << 10
)

// File events of a framed log stream, Nomad's wording.
const (
	logEventDeleted   = "file deleted"
	logEventTruncated = "file truncated"
)

// logDir is where the task logs are, in the allocation directory.
var logDir = path.Join(allocdir.SharedAllocName, allocdir.LogDirName)

// logFiles is one stream (stdout or stderr) of one task: the files
// alloc/logs/<task>.<type>.N of the allocation directory, N counting up as
// the driver rotates them. They are read through the directory's reader,
// like every file the fs endpoints serve: a task cannot make its log a
// pipe, a device or a link to a file elsewhere.
type logFiles struct {
	dir  *allocdir.Reader // the allocation directory
	base string           // "<task>.<type>"
}

// name is the path of a log file in the allocation directory, which is
// also how a frame names it.
func (l logFiles) name(index int) string {
	return path.Join(logDir, l.base+"."+strconv.Itoa(index))
}

// indexes lists the indexes of the files that exist, in order.
func (l logFiles) indexes() ([]int, error) {
	entries, err := l.dir.ReadDir(logDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list logs: %w", err)
	}
	var out []int
	for _, e := range entries {
		suffix, ok := strings.CutPrefix(e.Name(), l.base+".")
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(suffix); err == nil && n >= 0 && strconv.Itoa(n) == suffix {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out, nil
}

// next returns the lowest existing index above index, or -1.
func (l logFiles) next(index int) (int, error) {
	all, err := l.indexes()
	if err != nil {
		return -1, err
	}
	for _, n := range all {
		if n > index {
			return n, nil
		}
	}
	return -1, nil
}

func (l logFiles) size(index int) int64 {
	fi, err := l.dir.Stat(l.name(index))
	if err != nil {
		return 0
	}
	return fi.Size()
}

// seek finds where offset bytes from origin ("start" or "end") fall in the
// files taken as one stream, clamped to its ends.
func (l logFiles) seek(origin string, offset int64) (index int, pos int64, err error) {
	all, err := l.indexes()
	if err != nil || len(all) == 0 {
		return 0, 0, err
	}
	if origin == originEnd {
		for i := len(all) - 1; i >= 0; i-- {
			size := l.size(all[i])
			if offset <= size {
				return all[i], size - offset, nil
			}
			offset -= size
		}
		return all[0], 0, nil
	}
	for _, n := range all {
		size := l.size(n)
		if offset < size {
			return n, offset, nil
		}
		offset -= size
	}
	last := all[len(all)-1]
	return last, l.size(last), nil
}

// logSink receives a log stream.
type logSink interface {
	// data carries bytes of file, ending at offset end in it.
	data(file string, b []byte, end int64) error
	// event reports something that happened to file.
	event(file, ev string) error
	// idle is called while a followed stream waits for output.
	idle() error
}

// logStream reads a task's log from a position on, across rotations.
type logStream struct {
	files  logFiles
	index  int
	pos    int64
	follow bool
	// taskDead reports whether the task has stopped for good; a followed
	// stream then ends once it has sent everything written.
	taskDead func() bool

	f         *os.File // the open file, the one at index, or nil
	openIndex int      // the index f is of; meaningful when f is set
}

// open opens the file at the stream's index, unless it is open already.
// A file that does not exist (not written yet, or rotated away) leaves f
// nil and is no error.
func (s *logStream) open() error {
	if s.f != nil && s.openIndex == s.index {
		return nil
	}
	s.close()
	name := s.files.name(s.index)
	f, fi, err := s.files.dir.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open log: %w", err)
	}
	if fi.IsDir() {
		f.Close()
		return &allocdir.UnreadableError{Path: name, Reason: "a directory, not a log file"}
	}
	s.f, s.openIndex = f, s.index
	return nil
}

// close closes the open file, if any.
func (s *logStream) close() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
}

// run sends the log to sink until its end (or, when following, until the
// task is dead and everything it wrote is sent, or ctx ends).
func (s *logStream) run(ctx context.Context, sink logSink) error {
	buf := make([]byte, logReadChunk)
	defer s.close()
	deadSeen := false
	for ctx.Err() == nil {
		if err := s.open(); err != nil {
			return err
		}
		if s.f == nil {
			// Not written yet, or rotated away before we read it.
			next, err := s.files.next(s.index)
			if err != nil {
				return err
			}
			if next >= 0 {
				if s.pos > 0 {
					if err := sink.event(s.files.name(s.index), logEventDeleted); err != nil {
						return err
					}
				}
				s.index, s.pos = next, 0
				continue
			}
			if done, err := s.wait(ctx, sink, &deadSeen); done || err != nil {
				return err
			}
			continue
		}

		n, err := s.f.ReadAt(buf, s.pos)
		if n > 0 {
			s.pos += int64(n)
			if err := sink.data(s.files.name(s.index), buf[:n], s.pos); err != nil {
				return err
			}
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read log: %w", err)
		}
		// At the end of this file: a newer one takes over, once this
		// one is read to its end.
		next, err := s.files.next(s.index)
		if err != nil {
			return err
		}
		if next >= 0 {
			s.index, s.pos = next, 0
			continue
		}
		if fi, err := s.f.Stat(); err == nil && fi.Size() < s.pos {
			if err := sink.event(s.files.name(s.index), logEventTruncated); err != nil {
				return err
			}
			s.pos = 0
			continue
		}
		if done, err := s.wait(ctx, sink, &deadSeen); done || err != nil {
			return err
		}
	}
	return nil
}

// wait pauses a followed stream at the end of the log. It reports done
// when the stream should end: it is not followed, or the task is dead and
// a last read after its death found nothing new.
func (s *logStream) wait(ctx context.Context, sink logSink, deadSeen *bool) (done bool, err error) {
	if !s.follow || *deadSeen {
		return true, nil
	}
	if s.taskDead() {
		// Read once more: the task may have written just before dying.
		*deadSeen = true
		return false, nil
	}
	t := time.NewTimer(logPollInterval)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return true, nil
	case <-t.C:
	}
	return false, sink.idle()
}
