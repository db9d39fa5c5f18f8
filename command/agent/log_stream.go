package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
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

// logFiles is one stream (stdout or stderr) of one task: the files
// <dir>/<task>.<type>.N, N counting up as the driver rotates them.
type logFiles struct {
	dir  string // the allocation's alloc/logs
	base string // "<task>.<type>"
}

func (l logFiles) path(index int) string {
	return filepath.Join(l.dir, l.base+"."+strconv.Itoa(index))
}

// name is how a frame names a file: its path in the allocation directory.
func (l logFiles) name(index int) string {
	return "alloc/logs/" + l.base + "." + strconv.Itoa(index)
}

// indexes lists the indexes of the files that exist, in order.
func (l logFiles) indexes() ([]int, error) {
	entries, err := os.ReadDir(l.dir)
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
	fi, err := os.Stat(l.path(index))
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
}

// run sends the log to sink until its end (or, when following, until the
// task is dead and everything it wrote is sent, or ctx ends).
func (s *logStream) run(ctx context.Context, sink logSink) error {
	buf := make([]byte, logReadChunk)
	var f *os.File
	openIndex := -1
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	deadSeen := false
	for ctx.Err() == nil {
		if openIndex != s.index {
			if f != nil {
				f.Close()
				f = nil
			}
			var err error
			f, err = os.Open(s.files.path(s.index))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("open log: %w", err)
			}
			if err != nil {
				// Not written yet, or rotated away before we read it.
				next, lerr := s.files.next(s.index)
				if lerr != nil {
					return lerr
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
			openIndex = s.index
		}

		n, err := f.ReadAt(buf, s.pos)
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
		if fi, err := f.Stat(); err == nil && fi.Size() < s.pos {
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
