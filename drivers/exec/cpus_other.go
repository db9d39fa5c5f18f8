//go:build !linux

package exec

import "errors"

// pickCPUs fails: only Linux pins tasks to CPUs.
func pickCPUs(int) (string, error) { return "", errors.New("resources.cores needs Linux") }
