// Package logrotate writes a task's output stream into numbered, size-bounded
// files <base>.0, <base>.1, ..., the layout `alloc logs` reads.
//
// The files are in the allocation's alloc/logs, which its tasks can
// write: every file is opened, made and removed through the open log
// directory (see package beneath), and a link, named pipe, device or hard
// link a task left under a log file's name is replaced by a new file,
// never written through.
package logrotate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/drover-io/drover/internal/beneath"
)

// Rotator writes a stream into numbered files <base>.0, <base>.1, ...
// Each file holds at most maxBytes; once the current file is full the next
// index is opened and, beyond maxFiles files, the oldest are deleted. A new
// rotator continues in the highest-numbered existing file, so a task's log
// keeps growing in the same place across restarts of its writer.
//
// A Rotator is not safe for concurrent use.
type Rotator struct {
	dir      *beneath.Dir
	base     string
	maxFiles int
	maxBytes int64

	file  *os.File
	index int
	size  int64
}

// New opens the rotator's current file in dir, whose files are named
// base.N, creating it if needed. The rotator uses dir until it is closed;
// the caller closes dir after it.
func New(dir *beneath.Dir, base string, maxFiles int, maxBytes int64) (*Rotator, error) {
	if maxFiles < 1 {
		return nil, fmt.Errorf("log rotator for %s: max files must be at least 1, got %d", base, maxFiles)
	}
	if maxBytes < 1 {
		return nil, fmt.Errorf("log rotator for %s: max file size must be at least 1 byte, got %d", base, maxBytes)
	}
	if strings.ContainsRune(base, '/') {
		return nil, fmt.Errorf("log rotator for %s: the base is a name in the log directory, not a path", base)
	}
	r := &Rotator{dir: dir, base: base, maxFiles: maxFiles, maxBytes: maxBytes}
	indexes, err := r.logIndexes()
	if err != nil {
		return nil, err
	}
	if len(indexes) > 0 {
		r.index = indexes[len(indexes)-1]
	}
	if err := r.open(); err != nil {
		return nil, err
	}
	if err := r.purge(); err != nil {
		r.file.Close()
		return nil, err
	}
	return r, nil
}

// Write writes p across as many files as it takes.
func (r *Rotator) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		if r.size >= r.maxBytes {
			if err := r.rotate(); err != nil {
				return written, err
			}
		}
		chunk := p[:min(int64(len(p)), r.maxBytes-r.size)]
		n, err := r.file.Write(chunk)
		written += n
		r.size += int64(n)
		if err != nil {
			return written, fmt.Errorf("write %s: %w", r.file.Name(), err)
		}
		p = p[n:]
	}
	return written, nil
}

// Close closes the current file.
func (r *Rotator) Close() error { return r.file.Close() }

func (r *Rotator) path(index int) string {
	return r.base + "." + strconv.Itoa(index)
}

func (r *Rotator) open() error {
	f, err := OpenFile(r.dir, r.path(r.index))
	if err != nil {
		return fmt.Errorf("open log file: %w", err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("stat log file: %w", err)
	}
	r.file, r.size = f, info.Size()
	return nil
}

func (r *Rotator) rotate() error {
	if err := r.file.Close(); err != nil {
		return fmt.Errorf("close %s: %w", r.file.Name(), err)
	}
	r.index++
	if err := r.open(); err != nil {
		return err
	}
	return r.purge()
}

// OpenFile opens the log file name in dir for appending, creating it.
// The name is the client's: whatever else a task left there (a link, a
// named pipe, a device, a hard link) is removed and a new file made in
// its place.
func OpenFile(dir *beneath.Dir, name string) (*os.File, error) {
	f, err := dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if !errors.Is(err, beneath.ErrSymlink) && !errors.Is(err, beneath.ErrNotRegular) && !errors.Is(err, beneath.ErrHardLink) {
		return f, err
	}
	if err := dir.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("replace what is not a log file: %w", err)
	}
	// Exclusive: should the task put something there again meanwhile,
	// this fails rather than open it.
	return dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
}

// purge deletes the files older than the newest maxFiles.
func (r *Rotator) purge() error {
	indexes, err := r.logIndexes()
	if err != nil {
		return err
	}
	for _, i := range indexes {
		if i > r.index-r.maxFiles {
			break
		}
		if err := r.dir.Remove(r.path(i)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("delete old log file: %w", err)
		}
	}
	return nil
}

// logIndexes returns the indexes of the existing files <base>.N, ascending.
func (r *Rotator) logIndexes() ([]int, error) {
	prefix := r.base + "."
	names, err := r.dir.Names()
	if err != nil {
		return nil, fmt.Errorf("list log files: %w", err)
	}
	var indexes []int
	for _, name := range names {
		suffix, ok := strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		i, err := strconv.Atoi(suffix)
		if err != nil || i < 0 || strconv.Itoa(i) != suffix {
			continue
		}
		indexes = append(indexes, i)
	}
	// ReadDir sorts by name, so "10" precedes "9": sort numerically.
	slices.Sort(indexes)
	return indexes, nil
}
