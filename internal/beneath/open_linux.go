package beneath

import (
	"errors"
	"strconv"

	"golang.org/x/sys/unix"
)

// openRegular opens the regular file name in dirfd with flag. What is
// there is first opened with O_PATH, which only names it: a device or a
// pipe is never opened for real, and its kind is checked on the very
// file that is then opened for real, through its descriptor.
func openRegular(dirfd int, name string, flag int, perm uint32) (int, error) {
	if flag&(unix.O_CREAT|unix.O_EXCL) == unix.O_CREAT|unix.O_EXCL {
		// Creates a regular file or fails: it never opens what exists.
		return openat(dirfd, name, flag|unix.O_NOFOLLOW, perm)
	}
	// A file that appears or goes between the two opens below is looked
	// at again, a few times.
	for range 3 {
		pfd, err := openat(dirfd, name, unix.O_PATH|unix.O_NOFOLLOW, 0)
		if errors.Is(err, unix.ENOENT) && flag&unix.O_CREAT != 0 {
			fd, err := openat(dirfd, name, flag|unix.O_EXCL|unix.O_NOFOLLOW, perm)
			if errors.Is(err, unix.EEXIST) {
				continue
			}
			return fd, err
		}
		if err != nil {
			return -1, err
		}
		fd, err := reopenRegular(pfd, flag&^(unix.O_CREAT|unix.O_EXCL))
		unix.Close(pfd)
		return fd, err
	}
	return -1, unix.EAGAIN
}

// reopenRegular opens the file that pfd, an O_PATH descriptor, names,
// once it is known to be a regular file linked once.
func reopenRegular(pfd, flag int) (int, error) {
	var st unix.Stat_t
	if err := unix.Fstat(pfd, &st); err != nil {
		return -1, err
	}
	if err := checkRegular(&st); err != nil {
		return -1, err
	}
	return reopen(pfd, flag)
}

// reopen opens the file pfd names, through /proc/self/fd: the same file,
// whatever its name now leads to.
func reopen(pfd, flag int) (int, error) {
	for {
		fd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(pfd), flag|unix.O_CLOEXEC, 0)
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}
