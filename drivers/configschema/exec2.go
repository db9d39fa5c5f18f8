package configschema

import (
	"fmt"
	"path"
	"strings"

	"github.com/drover-io/drover/drivers/shared/taskconfig"
)

// Exec2 is the exec2 driver's config, with the key names of Nomad's
// exec2 plugin.
var Exec2 = &taskconfig.Schema{
	Driver: "exec2",
	Keys: []taskconfig.Key{
		// command is the program to run: an absolute path, or a name
		// looked up in the task's PATH; it must be readable and
		// executable under the task's unveil rules.
		{Name: "command", Type: taskconfig.String, Required: true, Check: notBlank},
		{Name: "args", Type: taskconfig.StringList},
		// unveil are the host paths the task may reach beyond its own
		// directories, each "<modes>:<path>" (see ParseUnveil).
		{Name: "unveil", Type: taskconfig.StringList, Check: unveilList},
	},
}

// Unveil is one host path a task may reach, and how.
type Unveil struct {
	Path string
	// Read, Write, Execute and Create are the modes "r", "w", "x" and
	// "c": read files and list directories; write and truncate files;
	// execute files; create, rename and remove entries of a directory.
	Read, Write, Execute, Create bool
}

// ParseUnveil reads an unveil rule such as "rx:/usr/bin": one or more of
// the modes r, w, x and c, a colon, and a clean absolute path.
func ParseUnveil(s string) (Unveil, error) {
	modes, p, ok := strings.Cut(s, ":")
	if !ok || modes == "" {
		return Unveil{}, fmt.Errorf("%q is not <modes>:<path> (modes of r, w, x and c, such as \"r:/etc/ssl\")", s)
	}
	u := Unveil{Path: p}
	for _, m := range modes {
		var flag *bool
		switch m {
		case 'r':
			flag = &u.Read
		case 'w':
			flag = &u.Write
		case 'x':
			flag = &u.Execute
		case 'c':
			flag = &u.Create
		default:
			return Unveil{}, fmt.Errorf("%q: unknown mode %q (modes are r, w, x and c)", s, m)
		}
		*flag = true
	}
	if !path.IsAbs(p) || path.Clean(p) != p {
		return Unveil{}, fmt.Errorf("%q: the path must be clean and absolute", s)
	}
	return u, nil
}

func unveilList(v any) error {
	for i, s := range v.([]string) {
		if _, err := ParseUnveil(s); err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
	}
	return nil
}
