//go:build !linux

package beneath

import "golang.org/x/sys/unix"

// openRegular opens the regular file name in dirfd with flag, never
// following a symbolic link and never blocking on a named pipe; what is
// not a regular file linked once is closed again unused. (Linux never
// opens it at all; see open_linux.go.)
func openRegular(dirfd int, name string, flag int, perm uint32) (int, error) {
	fd, err := openat(dirfd, name, flag|unix.O_NOFOLLOW|unix.O_NONBLOCK, perm)
	if err != nil {
		return -1, kindError(dirfd, name, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if err := checkRegular(&st); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if flag&unix.O_NONBLOCK == 0 {
		if err := unix.SetNonblock(fd, false); err != nil {
			unix.Close(fd)
			return -1, err
		}
	}
	return fd, nil
}
