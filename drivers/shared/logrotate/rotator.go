// Package logrotate writes a task's output stream into numbered, size-bounded
// files <base>.0, <base>.1, ..., the layout `alloc logs` reads.
package logrotate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Rotator writes a stream into numbered files <base>.0, <base>.1, ...
// Each file holds at most maxBytes; once the current file is full the next
// index is opened and, beyond maxFiles files, the oldest are deleted. A new
// rotator continues in the highest-numbered existing file, so a task's log
// keeps growing in the same place across restarts of its writer.
//
// A Rotator is not safe for concurrent use.
type Rotator struct {
	base     string
	maxFiles int
	maxBytes int64

	file  *os.File
	index int
	size  int64
}

// New opens the rotator's current file, creating it if needed.
func New(base string, maxFiles int, maxBytes int64) (*Rotator, error) {
	if maxFiles < 1 {
		return nil, fmt.Errorf("log rotator for %s: max files must be at least 1, got %d", base, maxFiles)
	}
	if maxBytes < 1 {
		return nil, fmt.Errorf("log rotator for %s: max file size must be at least 1 byte, got %d", base, maxBytes)
	}
	indexes, err := logIndexes(base)
	if err != nil {
		return nil, err
	}
	r := &Rotator{base: base, maxFiles: maxFiles, maxBytes: maxBytes}
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
	f, err := os.OpenFile(r.path(r.index), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
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

// purge deletes the files older than the newest maxFiles.
func (r *Rotator) purge() error {
	indexes, err := logIndexes(r.base)
	if err != nil {
		return err
	}
	for _, i := range indexes {
		if i > r.index-r.maxFiles {
			break
		}
		if err := os.Remove(r.path(i)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("delete old log file: %w", err)
		}
	}
	return nil
}

// logIndexes returns the indexes of the existing files <base>.N, ascending.
func logIndexes(base string) ([]int, error) {
	dir, prefix := filepath.Dir(base), filepath.Base(base)+"."
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list log files: %w", err)
	}
	var indexes []int
	for _, e := range entries {
		suffix, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || e.IsDir() {
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
