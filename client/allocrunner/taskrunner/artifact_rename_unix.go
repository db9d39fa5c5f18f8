//go:build unix

package taskrunner

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// moveInto renames the staged file src to dest, relative to root, when
// both are on one filesystem, and reports whether it did. The rename is
// made from the directory of dest as root opened it (links followed only
// inside root) to the one name dest ends in, which it replaces whatever
// it is, link or not, without following it: renameat never follows the
// last name.
func moveInto(root *os.Root, src, dest string) (bool, error) {
	dir, err := root.Open(filepath.Dir(dest))
	if err != nil {
		return false, err
	}
	defer dir.Close()
	srcDir, err := os.Open(filepath.Dir(src))
	if err != nil {
		return false, err
	}
	defer srcDir.Close()
	err = unix.Renameat(int(srcDir.Fd()), filepath.Base(src), int(dir.Fd()), filepath.Base(dest))
	if errors.Is(err, unix.EXDEV) {
		return false, nil
	}
	return err == nil, err
}
