package configschema

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/drover-io/drover/drivers/shared/taskconfig"
)

// RawExec is the raw_exec driver's config.
var RawExec = &taskconfig.Schema{
	Driver: "raw_exec",
	Keys: []taskconfig.Key{
		// command is the program to run: an absolute path, a path relative
		// to the task directory, or a name looked up in the task's PATH.
		{Name: "command", Type: taskconfig.String, Required: true, Check: notBlank},
		{Name: "args", Type: taskconfig.StringList},
		// work_dir is the absolute working directory; the task directory
		// when empty.
		{Name: "work_dir", Type: taskconfig.String, Check: absolutePath},
	},
}

func notBlank(v any) error {
	if strings.TrimSpace(v.(string)) == "" {
		return errors.New("must not be empty")
	}
	return nil
}

// absolutePath checks a path that may be empty (not set).
func absolutePath(v any) error {
	if s := v.(string); s != "" && !filepath.IsAbs(s) {
		return fmt.Errorf("%q is not an absolute path", s)
	}
	return nil
}
