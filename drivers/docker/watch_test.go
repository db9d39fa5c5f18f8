package docker

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/structs"
)

// TestMayBeOOM: only a SIGKILL exit the driver did not cause, of a
// container with a memory limit, waits for the engine's OOM flag.
func TestMayBeOOM(t *testing.T) {
	limited := func() *task {
		return newTask(&drivers.TaskConfig{ID: "a/t", Resources: &structs.Resources{MemoryMB: 16}})
	}
	killed := &drivers.ExitResult{ExitCode: exitSIGKILL}

	must.True(t, mayBeOOM(limited(), killed))

	must.False(t, mayBeOOM(limited(), &drivers.ExitResult{ExitCode: 1}), must.Sprint("not a SIGKILL"))
	must.False(t, mayBeOOM(limited(), &drivers.ExitResult{ExitCode: exitSIGKILL, OOMKilled: true}), must.Sprint("already flagged"))

	ours := limited()
	ours.sendingKill()
	must.False(t, mayBeOOM(ours, killed), must.Sprint("the driver sent the SIGKILL"))

	unlimited := newTask(&drivers.TaskConfig{ID: "a/t", Resources: &structs.Resources{}})
	must.False(t, mayBeOOM(unlimited, killed), must.Sprint("no memory limit"))
	must.False(t, mayBeOOM(newTask(&drivers.TaskConfig{ID: "a/t"}), killed), must.Sprint("no resources"))
}
