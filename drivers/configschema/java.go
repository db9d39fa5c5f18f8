package configschema

import (
	"errors"
	"fmt"
	"strings"

	"github.com/drover-io/drover/drivers/shared/taskconfig"
)

// Java is the java driver's config, with Nomad's key names. A task runs
// either jar_path or class; the driver refuses a config with neither.
var Java = &taskconfig.Schema{
	Driver: "java",
	Keys: []taskconfig.Key{
		// jar_path is the jar to run, inside the task's root: relative to
		// the task directory (an artifact's "local/app.jar"), or absolute.
		{Name: "jar_path", Type: taskconfig.String, Check: notBlankIfSet},
		// class is the main class, found on class_path (java's -cp).
		{Name: "class", Type: taskconfig.String, Check: notBlankIfSet},
		{Name: "class_path", Type: taskconfig.String},
		{Name: "jvm_options", Type: taskconfig.StringList, Check: jvmOptions},
		{Name: "args", Type: taskconfig.StringList},
		{Name: "pid_mode", Type: taskconfig.String, Check: namespaceMode},
		{Name: "ipc_mode", Type: taskconfig.String, Check: namespaceMode},
		{Name: "cap_add", Type: taskconfig.StringList},
		{Name: "cap_drop", Type: taskconfig.StringList},
	},
}

func notBlankIfSet(v any) error {
	if s := v.(string); s != "" && strings.TrimSpace(s) == "" {
		return errors.New("must not be blank")
	}
	return nil
}

// jvmOptions are options of the JVM, before the jar or class: each must
// be one ("-Xmx256m"), or java would take it for the class to run.
func jvmOptions(v any) error {
	for _, o := range v.([]string) {
		if !strings.HasPrefix(o, "-") {
			return fmt.Errorf("each option must start with \"-\", got %q", o)
		}
	}
	return nil
}
