//go:build !linux && !darwin

package allocdir

import (
	"io/fs"
	"time"
)

// linkCount is the number of hard links to the file fi describes. Drover
// reads it on Linux and macOS only; elsewhere every file counts as linked
// once, and the hard link check does not apply.
func linkCount(fs.FileInfo) uint64 { return 1 }

// changeTime is unknown outside Linux and macOS.
func changeTime(fs.FileInfo) time.Time { return time.Time{} }
