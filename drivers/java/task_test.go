package java

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
)

func TestReadTask(t *testing.T) {
	for name, tc := range map[string]struct {
		config map[string]any
		want   []string
		err    string
	}{
		"jar": {
			config: map[string]any{"jar_path": "local/app.jar", "jvm_options": []any{"-Xmx64m"}, "args": []any{"a", "b"}},
			want:   []string{"-Xmx64m", "-jar", "local/app.jar", "a", "b"},
		},
		"class on a class path": {
			config: map[string]any{"class": "Hello", "class_path": "local/classes", "args": []any{"x"}},
			want:   []string{"-cp", "local/classes", "Hello", "x"},
		},
		"class":   {config: map[string]any{"class": "Hello"}, want: []string{"Hello"}},
		"neither": {config: map[string]any{"args": []any{"x"}}, err: `"jar_path" and "class": one must be set`},
		"both":    {config: map[string]any{"class": "A", "jar_path": "a.jar"}, err: "set one, not both"},
		"class path with a jar": {
			config: map[string]any{"jar_path": "a.jar", "class_path": "lib"},
			err:    `"class_path": java ignores it`,
		},
		"jvm option that is not one": {
			config: map[string]any{"class": "A", "jvm_options": []any{"Xmx1g"}},
			err:    `config key "jvm_options": each option must start with "-", got "Xmx1g"`,
		},
		"unknown key": {config: map[string]any{"class": "A", "jar": "a.jar"}, err: `"jar"`},
	} {
		t.Run(name, func(t *testing.T) {
			task, err := readTask(&drivers.TaskConfig{Config: tc.config})
			if tc.err != "" {
				must.ErrorContains(t, err, tc.err)
				return
			}
			must.NoError(t, err)
			must.Eq(t, "java", task.Command)
			must.Eq(t, tc.want, task.Args)
		})
	}
}
