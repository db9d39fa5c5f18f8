// Package beneath opens, makes and removes files inside a directory that
// the caller trusts but whose contents something else can change: an
// allocation's directory, which its tasks write. A path is never resolved
// by its text. It is walked one name at a time from an open directory,
// each name opened relative to the one before with O_NOFOLLOW, so that no
// symbolic link is ever followed, ".." never climbs, and whatever a task
// renames or replaces meanwhile, what is opened is beneath the directory
// (what openat2's RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS guarantees, on any
// Unix).
//
// Only directories and regular files linked once are opened: a symbolic
// link, a device, a named pipe, a socket or a hard link planted in place
// of a file is refused, and on Linux without being opened at all (opening
// a device can act on it, opening a pipe can block).
//
// On Linux, OpenPath resolves a path that may follow symbolic links as
// long as they stay inside (RESOLVE_BENEATH), for paths a job author
// names, such as a docker volume's source.
package beneath
