// Package configschema declares the `config` block of each of Drover's
// built-in drivers. It is the one definition of what a task's config may
// hold: the drivers read their config with it, and the jobspec parser and
// the agent check a submitted job against it, so that a typo is refused
// before anything runs rather than when the client starts the task.
//
// It imports no driver, so that the parser and the server can use it.
package configschema

import (
	"slices"

	"github.com/drover-io/drover/drivers/shared/taskconfig"
)

var builtin = []*taskconfig.Schema{RawExec, Exec, Exec2, Java, Docker, Mock}

// Lookup returns the schema of the built-in driver name.
func Lookup(name string) (*taskconfig.Schema, bool) {
	for _, s := range builtin {
		if s.Driver == name {
			return s, true
		}
	}
	return nil, false
}

// Drivers returns the names of the built-in drivers, sorted.
func Drivers() []string {
	return drivers(func(*taskconfig.Schema) bool { return true })
}

// UserDrivers are Drivers without the test driver (Mock), which dev agents
// have but no error message or suggestion offers.
func UserDrivers() []string {
	return drivers(func(s *taskconfig.Schema) bool { return s != Mock })
}

func drivers(keep func(*taskconfig.Schema) bool) []string {
	var out []string
	for _, s := range builtin {
		if keep(s) {
			out = append(out, s.Driver)
		}
	}
	slices.Sort(out)
	return out
}
