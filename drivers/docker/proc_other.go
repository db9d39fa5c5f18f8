//go:build !linux

package docker

import (
	"errors"
	"syscall"
	"time"
)

// procHandle is Linux's pidfd; elsewhere the driver goes through the
// engine for signals and exits.
type procHandle struct{}

func openProc(int, string) (*procHandle, error) { return nil, errors.New("no pidfd on this system") }

func (*procHandle) signal(syscall.Signal) error { return errors.New("no pidfd on this system") }

func (*procHandle) wait() (time.Time, error) {
	return time.Time{}, errors.New("no pidfd on this system")
}

func (*procHandle) close() {}
