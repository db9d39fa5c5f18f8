package configschema

import (
	"fmt"

	"github.com/drover-io/drover/drivers/shared/taskconfig"
)

// Exec is the exec driver's config, with Nomad's key names.
var Exec = &taskconfig.Schema{
	Driver: "exec",
	Keys: []taskconfig.Key{
		// command is the program to run, looked up inside the task's root:
		// an absolute path there, a path relative to the task directory,
		// or a name found in local/, the task directory or PATH.
		{Name: "command", Type: taskconfig.String, Required: true, Check: notBlank},
		{Name: "args", Type: taskconfig.StringList},
		// pid_mode and ipc_mode: "private" or "host" (where the client
		// allows it); the client's default when unset.
		{Name: "pid_mode", Type: taskconfig.String, Check: namespaceMode},
		{Name: "ipc_mode", Type: taskconfig.String, Check: namespaceMode},
		{Name: "cap_add", Type: taskconfig.StringList},
		{Name: "cap_drop", Type: taskconfig.StringList},
	},
}

func namespaceMode(v any) error {
	if s := v.(string); s != "" && s != "private" && s != "host" {
		return fmt.Errorf(`must be "private" or "host", got %q`, s)
	}
	return nil
}
