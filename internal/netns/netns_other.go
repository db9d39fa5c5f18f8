//go:build !linux

package netns

import "errors"

var errUnsupported = errors.New("network namespaces need Linux")

// Create is Linux only.
func Create(path string) error { return errUnsupported }

// Remove is Linux only.
func Remove(path string) error { return errUnsupported }

// Exists is Linux only.
func Exists(path string) bool { return false }

// Do is Linux only.
func Do(path string, fn func() error) error { return errUnsupported }
