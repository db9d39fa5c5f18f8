package taskconfig

import (
	"fmt"
	"strconv"
)

// Block returns the nested block at key, or nil when absent. A block
// arrives as a map (JSON, an HCL attribute `auth = { ... }`) or as a list
// holding one map (an HCL block `auth { ... }`); more than one is an
// error.
func (m Map) Block(key string) (Map, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, nil
	}
	switch b := v.(type) {
	case map[string]any:
		return Map(b), nil
	case Map:
		return b, nil
	case []map[string]any:
		if len(b) == 1 {
			return Map(b[0]), nil
		}
		return nil, fmt.Errorf("config key %q: want one block, got %d", key, len(b))
	case []any:
		if len(b) != 1 {
			return nil, fmt.Errorf("config key %q: want one block, got %d", key, len(b))
		}
		if inner, ok := b[0].(map[string]any); ok {
			return Map(inner), nil
		}
	}
	return nil, typeError(key, "a block", v)
}

// StringMap returns the block or map at key as strings, or nil when
// absent. Whole numbers and booleans are accepted and formatted, since
// `nofile = 1024` and `nofile = "1024"` mean the same.
func (m Map) StringMap(key string) (map[string]string, error) {
	b, err := m.Block(key)
	if err != nil || b == nil {
		return nil, err
	}
	out := make(map[string]string, len(b))
	for k, v := range b {
		switch s := v.(type) {
		case string:
			out[k] = s
		case bool:
			out[k] = strconv.FormatBool(s)
		default:
			n, ok := toInt(v)
			if !ok {
				return nil, fmt.Errorf("config key %q: value of %q: want a string, got %T (%v)", key, k, v, v)
			}
			out[k] = strconv.Itoa(n)
		}
	}
	return out, nil
}

// Block reads a nested block; see Map.Block.
func (r *Reader) Block(key string) Map {
	v, err := r.m.Block(key)
	r.add(err)
	return v
}

// StringMap reads a map of strings; see Map.StringMap.
func (r *Reader) StringMap(key string) map[string]string {
	v, err := r.m.StringMap(key)
	r.add(err)
	return v
}

// Child returns a Reader over the nested block at key that reports its
// keys not in known, and its problems, as this Reader's, prefixed with
// the block's name. It reads an empty block when key is absent.
func (r *Reader) Child(key string, known ...string) *Reader {
	b := r.Block(key)
	c := &Reader{m: b, parent: r, prefix: key}
	c.add(b.CheckKeys(known...))
	return c
}

// Nested returns a Reader over the nested block at key, for a block the
// schema has checked already; it reads an empty block when key is absent.
func (r *Reader) Nested(key string) *Reader {
	return &Reader{m: r.Block(key), parent: r, prefix: key}
}
