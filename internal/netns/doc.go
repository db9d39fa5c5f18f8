// Package netns makes, enters and removes persistent network namespaces:
// a namespace is kept alive by a bind mount of its nsfs file on a path
// of the caller's choosing, so that it outlives every process in it and a
// later agent finds it again by that path.
//
// Every function that enters a namespace does so on an OS thread of its
// own, locked to its goroutine and never unlocked: when the goroutine
// returns the Go runtime ends that thread, so no other goroutine ever runs
// in a namespace it did not ask for.
package netns
