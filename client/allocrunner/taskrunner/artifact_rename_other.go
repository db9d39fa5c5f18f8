//go:build !unix

package taskrunner

import "os"

// moveInto never renames where renameat is not had: the file is copied.
func moveInto(*os.Root, string, string) (bool, error) { return false, nil }
