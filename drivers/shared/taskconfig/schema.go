package taskconfig

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/drover-io/drover/internal/editdist"
)

// Type is the kind of value a config key holds.
type Type int

const (
	String Type = iota + 1
	Bool
	Int
	Duration
	StringList
	StringMap
	// Block is a nested block, whose own keys are Key.Keys.
	Block
	// Any is a value of any type; the key's Check decides.
	Any
)

// Key is one key a config block may hold.
type Key struct {
	Name     string
	Type     Type
	Required bool
	// Keys are the keys of a Block.
	Keys []Key
	// Check, when set, checks a value already known to be of Type: a
	// string, bool, int, time.Duration, []string or map[string]string,
	// and for Any the value as decoded. Its error reads after the key's
	// name.
	Check func(v any) error
}

// Schema is what a driver's config block may hold: the one definition
// the driver reads its config with (Read) and the agent and the jobspec
// parser check a submitted job against (CheckSubmitted).
type Schema struct {
	// Driver is the name a task's `driver` gives.
	Driver string
	Keys   []Key
}

// Problem is one thing wrong with a config block.
type Problem struct {
	// Path is the key concerned, after the blocks it is nested in:
	// ["auth", "usernme"].
	Path []string
	// Err says what is wrong, naming the key and its blocks.
	Err error
}

func (p Problem) Error() string { return p.Err.Error() }

// Names returns the schema's top-level keys, in their order.
func (s *Schema) Names() []string { return keyNames(s.Keys) }

// Read checks raw, an interpolated config as the driver gets it, and
// returns a Reader over it: every problem at once, or a Reader whose
// accessors cannot fail.
func (s *Schema) Read(raw map[string]any) (*Reader, error) {
	if problems := checkKeys(Map(raw), s.Keys, false); len(problems) > 0 {
		errs := make([]error, len(problems))
		for i, p := range problems {
			errs[i] = p
		}
		return nil, errors.Join(errs...)
	}
	return NewReader(raw, s.Names()...), nil
}

// CheckSubmitted checks raw as a job submits it, before any
// interpolation: a value that holds a runtime reference ("${NOMAD_TASK_DIR}/x")
// is known only once the client interpolates it, so its key is checked
// and its value is not.
func (s *Schema) CheckSubmitted(raw map[string]any) []Problem {
	return checkKeys(Map(raw), s.Keys, true)
}

func checkKeys(m Map, keys []Key, submitted bool) []Problem {
	var out []Problem
	names := keyNames(keys)
	for _, name := range sortedMapKeys(m) {
		if !slices.Contains(names, name) {
			out = append(out, Problem{Path: []string{name}, Err: unknownKey(name, names)})
		}
	}
	for _, k := range keys {
		v, set := m[k.Name]
		switch {
		case !set || v == nil:
			if k.Required {
				out = append(out, Problem{Path: []string{k.Name}, Err: fmt.Errorf("config key %q is required", k.Name)})
			}
		case k.Type == Block:
			out = append(out, checkBlock(m, k, submitted)...)
		case submitted && holdsReference(v):
		default:
			if err := checkValue(m, k); err != nil {
				out = append(out, Problem{Path: []string{k.Name}, Err: err})
			}
		}
	}
	return out
}

// checkBlock checks a nested block's keys; its problems name the block.
func checkBlock(m Map, k Key, submitted bool) []Problem {
	b, err := m.Block(k.Name)
	if err != nil {
		return []Problem{{Path: []string{k.Name}, Err: err}}
	}
	inner := checkKeys(b, k.Keys, submitted)
	for i, p := range inner {
		inner[i] = Problem{
			Path: append([]string{k.Name}, p.Path...),
			Err:  fmt.Errorf("block %q: %w", k.Name, p.Err),
		}
	}
	return inner
}

// checkValue checks the type of k's value in m, then k.Check.
func checkValue(m Map, k Key) error {
	var v any
	var err error
	switch k.Type {
	case String:
		v, err = m.String(k.Name)
	case Bool:
		v, err = m.Bool(k.Name)
	case Int:
		v, err = m.Int(k.Name)
	case Duration:
		v, err = m.Duration(k.Name)
	case StringList:
		v, err = m.StringList(k.Name)
	case StringMap:
		v, err = m.StringMap(k.Name)
	case Any:
		v = m[k.Name]
	default:
		return fmt.Errorf("config key %q: the schema gives it no type", k.Name)
	}
	if err != nil {
		return err
	}
	if k.Check == nil {
		return nil
	}
	if err := k.Check(v); err != nil {
		return fmt.Errorf("config key %q: %w", k.Name, err)
	}
	return nil
}

// unknownKey names a key the block does not have, and the one it most
// likely meant.
func unknownKey(name string, known []string) error {
	if guess := Closest(name, known); guess != "" {
		return fmt.Errorf("unsupported config key %q: did you mean %q? (supported: %s)", name, guess, strings.Join(known, ", "))
	}
	return fmt.Errorf("unsupported config key %q (supported: %s)", name, strings.Join(known, ", "))
}

// Closest returns the known name nearest to name by edit distance, if it
// is near enough to be a typo of it.
func Closest(name string, known []string) string {
	best, bestDist := "", max(2, len(name)/3)+1
	for _, k := range known {
		if d := editdist.Distance(name, k); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// holdsReference reports whether v holds a string with a runtime
// reference, "${...}", which the client interpolates.
func holdsReference(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.Contains(x, "${")
	case []string:
		return slices.ContainsFunc(x, func(s string) bool { return strings.Contains(s, "${") })
	case []any:
		return slices.ContainsFunc(x, holdsReference)
	case map[string]any:
		for _, e := range x {
			if holdsReference(e) {
				return true
			}
		}
	case Map:
		return holdsReference(map[string]any(x))
	}
	return false
}

func keyNames(keys []Key) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.Name
	}
	return out
}

func sortedMapKeys(m Map) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// NonNegative checks that an int or a duration is not negative.
func NonNegative(v any) error {
	switch n := v.(type) {
	case int:
		if n < 0 {
			return fmt.Errorf("must not be negative, got %d", n)
		}
	case time.Duration:
		if n < 0 {
			return fmt.Errorf("must not be negative, got %s", n)
		}
	}
	return nil
}
