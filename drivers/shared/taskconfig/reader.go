package taskconfig

import (
	"errors"
	"fmt"
	"time"
)

// Reader reads a config block key by key and collects every problem, so
// that a user sees all of them at once. Each accessor returns the zero
// value when its key is absent or invalid.
type Reader struct {
	m    Map
	errs []error

	// parent, for a nested block's Reader, collects its problems, which
	// are prefixed with the block's name.
	parent *Reader
	prefix string
}

// NewReader returns a Reader over raw that reports keys not in known.
func NewReader(raw map[string]any, known ...string) *Reader {
	r := &Reader{m: Map(raw)}
	r.add(r.m.CheckKeys(known...))
	return r
}

// Err returns every problem found so far, joined, or nil.
func (r *Reader) Err() error { return errors.Join(r.errs...) }

// Has reports whether key is set.
func (r *Reader) Has(key string) bool { return r.m[key] != nil }

// Raw returns the value at key as decoded.
func (r *Reader) Raw(key string) any { return r.m[key] }

// Fail records a problem found by the caller.
func (r *Reader) Fail(err error) { r.add(err) }

func (r *Reader) String(key string) string {
	v, err := r.m.String(key)
	r.add(err)
	return v
}

func (r *Reader) Bool(key string) bool {
	v, err := r.m.Bool(key)
	r.add(err)
	return v
}

func (r *Reader) Int(key string) int {
	v, err := r.m.Int(key)
	r.add(err)
	return v
}

func (r *Reader) Duration(key string) time.Duration {
	v, err := r.m.Duration(key)
	r.add(err)
	return v
}

func (r *Reader) StringList(key string) []string {
	v, err := r.m.StringList(key)
	r.add(err)
	return v
}

func (r *Reader) add(err error) {
	switch {
	case err == nil:
	case r.parent != nil:
		r.parent.add(fmt.Errorf("block %q: %w", r.prefix, err))
	default:
		r.errs = append(r.errs, err)
	}
}
