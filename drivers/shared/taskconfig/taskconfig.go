// Package taskconfig reads typed values out of a task's `config` block.
//
// The block arrives as a map[string]any whose values were decoded from HCL
// or JSON, so a number may be an int, an int64 or a float64; the accessors
// accept every representation of their type and name the key in errors.
package taskconfig

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Map is a task's config block.
type Map map[string]any

// CheckKeys returns an error naming every key of m that is not in known.
func (m Map) CheckKeys(known ...string) error {
	var unknown []string
	for k := range m {
		if !slices.Contains(known, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	return fmt.Errorf("unsupported config key(s) %s (supported: %s)",
		quoteAll(unknown), strings.Join(known, ", "))
}

// String returns the string at key, or "" when absent.
func (m Map) String(key string) (string, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", typeError(key, "a string", v)
	}
	return s, nil
}

// Bool returns the boolean at key, or false when absent. The strings
// "true" and "false" are accepted too.
func (m Map) Bool(key string) (bool, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return false, nil
	}
	switch b := v.(type) {
	case bool:
		return b, nil
	case string:
		switch b {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	return false, typeError(key, "a boolean", v)
}

// Int returns the integer at key, or 0 when absent.
func (m Map) Int(key string) (int, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return 0, nil
	}
	n, ok := toInt(v)
	if !ok {
		return 0, typeError(key, "an integer", v)
	}
	return n, nil
}

// Duration returns the duration at key, or 0 when absent. It accepts a Go
// duration string ("1.5s") or an integer number of nanoseconds. Negative
// durations are an error.
func (m Map) Duration(key string) (time.Duration, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return 0, nil
	}
	var d time.Duration
	if s, isString := v.(string); isString {
		parsed, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("config key %q: %w", key, err)
		}
		d = parsed
	} else if n, isInt := toInt(v); isInt {
		d = time.Duration(n)
	} else {
		return 0, typeError(key, "a duration string such as \"5s\"", v)
	}
	if d < 0 {
		return 0, fmt.Errorf("config key %q: duration %s must not be negative", key, d)
	}
	return d, nil
}

// StringList returns the list of strings at key, or nil when absent. Both
// []string and []any holding only strings are accepted.
func (m Map) StringList(key string) ([]string, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, nil
	}
	switch l := v.(type) {
	case []string:
		return slices.Clone(l), nil
	case []any:
		out := make([]string, len(l))
		for i, e := range l {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("config key %q: element %d: want a string, got %T", key, i, e)
			}
			out[i] = s
		}
		return out, nil
	}
	return nil, typeError(key, "a list of strings", v)
}

func toInt(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int8:
		return int(n), true
	case int16:
		return int(n), true
	case int32:
		return int(n), true
	case int64:
		return int(n), true
	case uint8:
		return int(n), true
	case uint16:
		return int(n), true
	case uint32:
		return int(n), true
	case uint64:
		if n > math.MaxInt64 {
			return 0, false
		}
		return int(n), true
	case float64:
		if n != math.Trunc(n) || math.Abs(n) > 1<<53 {
			return 0, false
		}
		return int(n), true
	case float32:
		return toInt(float64(n))
	case json.Number:
		i, err := n.Int64()
		return int(i), err == nil
	}
	return 0, false
}

func typeError(key, want string, got any) error {
	return fmt.Errorf("config key %q: want %s, got %T (%v)", key, want, got, got)
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
