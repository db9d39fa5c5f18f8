package taskconfig

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func TestReader_CollectsEveryProblem(t *testing.T) {
	r := NewReader(map[string]any{
		"run_for":   "forever",
		"exit_code": "three",
		"name":      "ok",
		"extra":     true,
	}, "run_for", "exit_code", "name")

	must.Eq(t, 0, r.Duration("run_for"))
	must.Eq(t, 0, r.Int("exit_code"))
	must.Eq(t, "ok", r.String("name"))
	must.True(t, r.Has("name"))
	must.False(t, r.Has("absent"))

	err := r.Err()
	must.ErrorContains(t, err, `unsupported config key(s) "extra"`)
	must.ErrorContains(t, err, `config key "run_for"`)
	must.ErrorContains(t, err, `config key "exit_code"`)
}

func TestReader_NoProblems(t *testing.T) {
	r := NewReader(map[string]any{"d": "2s", "l": []any{"a"}, "b": true}, "d", "l", "b")
	must.Eq(t, 2*time.Second, r.Duration("d"))
	must.Eq(t, []string{"a"}, r.StringList("l"))
	must.True(t, r.Bool("b"))
	must.NoError(t, r.Err())
}
