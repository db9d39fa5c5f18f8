package taskconfig

import (
	"errors"
	"testing"

	"github.com/shoenig/test/must"
)

var testSchema = &Schema{
	Driver: "test",
	Keys: []Key{
		{Name: "command", Type: String, Required: true},
		{Name: "args", Type: StringList},
		{Name: "count", Type: Int, Check: NonNegative},
		{Name: "timeout", Type: Duration},
		{Name: "mode", Type: String, Check: func(v any) error {
			if v.(string) != "fast" && v.(string) != "" {
				return errors.New(`want "fast"`)
			}
			return nil
		}},
		{Name: "auth", Type: Block, Keys: []Key{
			{Name: "username", Type: String, Required: true},
		}},
	},
}

func messages(problems []Problem) []string {
	out := make([]string, len(problems))
	for i, p := range problems {
		out[i] = p.Error()
	}
	return out
}

func TestSchema_CheckSubmitted_NamesEveryProblemAndItsKey(t *testing.T) {
	problems := testSchema.CheckSubmitted(map[string]any{
		"comand":  "/bin/true",
		"args":    []any{"a", 1},
		"count":   -1,
		"timeout": "soon",
		"mode":    "slow",
		"auth":    []any{map[string]any{"usernme": "u"}},
	})
	must.Eq(t, []string{
		`unsupported config key "comand": did you mean "command"? (supported: command, args, count, timeout, mode, auth)`,
		`config key "command" is required`,
		`config key "args": element 1: want a string, got int`,
		`config key "count": must not be negative, got -1`,
		`config key "timeout": time: invalid duration "soon"`,
		`config key "mode": want "fast"`,
		`block "auth": unsupported config key "usernme": did you mean "username"? (supported: username)`,
		`block "auth": config key "username" is required`,
	}, messages(problems))
	var paths [][]string
	for _, p := range problems {
		paths = append(paths, p.Path)
	}
	must.Eq(t, [][]string{{"comand"}, {"command"}, {"args"}, {"count"}, {"timeout"}, {"mode"}, {"auth", "usernme"}, {"auth", "username"}}, paths)
}

func TestSchema_CheckSubmitted_LeavesReferencesToTheClient(t *testing.T) {
	// Interpolated on the client: the key is known, the value is not yet.
	must.SliceEmpty(t, testSchema.CheckSubmitted(map[string]any{
		"command": "${NOMAD_TASK_DIR}/run",
		"count":   "${NOMAD_META_count}",
		"args":    []any{"${NOMAD_ALLOC_ID}", 2},
		"auth":    map[string]any{"username": "${meta.user}"},
	}))
	// An unknown key is refused whatever its value.
	must.Eq(t, []string{`unsupported config key "bogus" (supported: command, args, count, timeout, mode, auth)`},
		messages(testSchema.CheckSubmitted(map[string]any{"command": "x", "bogus": "${NOMAD_TASK_DIR}"})))
}

func TestSchema_Read(t *testing.T) {
	r, err := testSchema.Read(map[string]any{"command": "/bin/true", "count": float64(3), "auth": map[string]any{"username": "u"}})
	must.NoError(t, err)
	must.Eq(t, "/bin/true", r.String("command"))
	must.Eq(t, 3, r.Int("count"))
	must.Eq(t, "u", r.Nested("auth").String("username"))
	must.NoError(t, r.Err())

	// Once interpolated, a value is checked like any other.
	_, err = testSchema.Read(map[string]any{"command": "x", "count": "${NOMAD_META_count}"})
	must.ErrorContains(t, err, `config key "count": want an integer`)
	_, err = testSchema.Read(map[string]any{})
	must.ErrorContains(t, err, `config key "command" is required`)
}

func TestClosest(t *testing.T) {
	known := []string{"command", "args", "work_dir"}
	must.Eq(t, "command", Closest("comand", known))
	must.Eq(t, "work_dir", Closest("workdir", known))
	must.Eq(t, "", Closest("image", known))
	must.Eq(t, "raw_exec", Closest("rawexec", []string{"docker", "raw_exec"}))
}
