package exec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/drover-io/drover/drivers/configschema"
	"github.com/drover-io/drover/drivers/exec/isolate"
)

// Task is what a task runs and asks of its isolation: an exec task's
// `config` block, or what another driver built on this one (java) makes
// of its own.
type Task struct {
	Command string
	Args    []string
	PIDMode string
	IPCMode string
	CapAdd  []string
	CapDrop []string
}

// parseTaskConfig reads a task's config, which configschema.Exec defines.
func parseTaskConfig(raw map[string]any) (*Task, error) {
	r, err := configschema.Exec.Read(raw)
	if err != nil {
		return nil, err
	}
	c := &Task{
		Command: r.String("command"),
		Args:    r.StringList("args"),
		PIDMode: r.String("pid_mode"),
		IPCMode: r.String("ipc_mode"),
		CapAdd:  r.StringList("cap_add"),
		CapDrop: r.StringList("cap_drop"),
	}
	return c, r.Err()
}

// namespaceMode decides whether a namespace is private: the task's mode,
// else the client's default; "host" only where the client's default is
// host, as Nomad allows it.
func namespaceMode(key, asked, dflt string) (private bool, err error) {
	mode := asked
	if mode == "" {
		mode = dflt
	}
	if mode == modeHost && dflt != modeHost {
		return false, fmt.Errorf(`config key %q: "host" is not allowed by this client (its plugin config's default_%s is %q)`, key, key, dflt)
	}
	return mode == modePrivate, nil
}

// capabilities is the task's capability set: Nomad's default set (as
// far as the client allows it), less cap_drop, plus cap_add, which may
// only name capabilities the client allows. "all" stands for every one.
func capabilities(allow []string, add, drop []string) ([]string, error) {
	allowed := func(c string) bool { return slices.Contains(allow, "all") || slices.Contains(allow, c) }
	var set []string
	for _, c := range isolate.DefaultCaps {
		if allowed(c) {
			set = append(set, c)
		}
	}
	for _, name := range drop {
		n, err := isolate.NormalizeCap(name)
		if err != nil {
			return nil, fmt.Errorf(`config key "cap_drop": %w`, err)
		}
		set = slices.DeleteFunc(set, func(c string) bool { return n == "all" || c == n })
	}
	for _, name := range add {
		n, err := isolate.NormalizeCap(name)
		if err != nil {
			return nil, fmt.Errorf(`config key "cap_add": %w`, err)
		}
		names := []string{n}
		if n == "all" {
			names = isolate.AllCaps()
		}
		for _, c := range names {
			if !allowed(c) {
				return nil, fmt.Errorf(`config key "cap_add": capability %q is not allowed by this client (allow_caps: %s)`, name, strings.Join(allow, ", "))
			}
		}
		set = append(set, names...)
	}
	slices.Sort(set)
	return slices.Compact(set), nil
}
