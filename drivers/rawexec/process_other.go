//go:build !linux

package rawexec

// watchSupervisor returns a function that blocks until the supervisor with
// the given pid exits; without pidfds it polls.
func watchSupervisor(pid int, stateDir string) (func(), error) {
	return pollSupervisor(pid, stateDir)
}

// isSupervisor cannot read another process's command line portably; a
// living process under the recorded pid is taken to be the supervisor.
func isSupervisor(pid int, stateDir string) bool { return true }

// awaitExit returns at once; the caller's wait(2) does the waiting.
func awaitExit(pid int) {}

// releaseReadOnlyMappings is a Linux-only memory optimisation.
func releaseReadOnlyMappings() {}

// lowerPriority is left to the platforms where a supervisor needs it.
func lowerPriority() {}
