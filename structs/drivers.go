package structs

import (
	"fmt"
	"slices"
	"strings"
)

// Drivers are the task drivers Drover has, by the name a task's `driver`
// attribute gives. A name outside the list is refused when a job is
// validated: no node could ever run the task, and the job would wait for
// capacity forever. Nomad's other drivers (qemu, podman, ...) are
// not among them.
var Drivers = []string{"docker", "exec", "exec2", "java", "mock_driver", "raw_exec"}

// TestDriver is the driver that exists for tests (drivers/mock): dev
// agents have it, but users are never pointed at it.
const TestDriver = "mock_driver"

// ExecDrivers are the drivers that can run a command inside a running
// task (drivers.Execer), as a script check or a template's change_script
// does: an isolated task's (exec, exec2, java) inside its isolation.
var ExecDrivers = []string{"docker", "exec", "exec2", "java", "raw_exec"}

// KnownDriver reports whether name is one of Drivers.
func KnownDriver(name string) bool { return slices.Contains(Drivers, name) }

// differencesPage lists Nomad's drivers that Drover does not have (it is
// api/unsupported.DocsPage; the documentation's tests hold them equal).
const differencesPage = "website/content/docs/differences.md"

// UserDrivers are Drivers without TestDriver: the ones an error message
// or a suggestion offers.
func UserDrivers() []string {
	return slices.DeleteFunc(slices.Clone(Drivers), func(d string) bool { return d == TestDriver })
}

func unknownDriverProblem(name string) string {
	return fmt.Sprintf("Unknown driver %q (Drover's drivers: %s; Nomad's others: see %s)", name, strings.Join(UserDrivers(), ", "), differencesPage)
}
