package taskconfig

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestMap_Block(t *testing.T) {
	// An HCL block arrives as a list of one map, JSON as a map.
	for _, v := range []any{
		[]any{map[string]any{"username": "u"}},
		map[string]any{"username": "u"},
		[]map[string]any{{"username": "u"}},
	} {
		b, err := Map{"auth": v}.Block("auth")
		must.NoError(t, err)
		must.Eq(t, Map{"username": "u"}, b)
	}
	b, err := Map{}.Block("auth")
	must.NoError(t, err)
	must.Nil(t, b)

	_, err = Map{"auth": []any{map[string]any{}, map[string]any{}}}.Block("auth")
	must.ErrorContains(t, err, `config key "auth": want one block, got 2`)
	_, err = Map{"auth": "user:pass"}.Block("auth")
	must.ErrorContains(t, err, `config key "auth": want a block`)
}

func TestMap_StringMap(t *testing.T) {
	m, err := Map{"ulimit": []any{map[string]any{"nofile": "1024:2048", "nproc": 64, "core": float64(0)}}}.StringMap("ulimit")
	must.NoError(t, err)
	must.Eq(t, map[string]string{"nofile": "1024:2048", "nproc": "64", "core": "0"}, m)

	_, err = Map{"labels": map[string]any{"a": []any{"x"}}}.StringMap("labels")
	must.ErrorContains(t, err, `config key "labels": value of "a": want a string`)
}

func TestReader_Child(t *testing.T) {
	r := NewReader(map[string]any{
		"gc": []any{map[string]any{"image": "yes", "imagedelay": "3m"}},
	}, "gc")
	gc := r.Child("gc", "image", "image_delay")
	must.False(t, gc.Bool("image"))
	must.Eq(t, 0, gc.Duration("image_delay"))

	err := r.Err()
	must.ErrorContains(t, err, `block "gc": unsupported config key(s) "imagedelay"`)
	must.ErrorContains(t, err, `block "gc": config key "image": want a boolean`)

	absent := NewReader(map[string]any{}, "gc").Child("gc", "image")
	must.False(t, absent.Has("image"))
	must.NoError(t, absent.Err())
}
