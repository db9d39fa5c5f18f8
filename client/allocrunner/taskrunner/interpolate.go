package taskrunner

import (
	"strings"
)

// replace resolves every ${...} reference in s. A reference is one of
//
//	${attr.<name>}       a node attribute
//	${meta.<name>}       a node meta value
//	${node.unique.id}, ${node.unique.name}, ${node.datacenter},
//	${node.class}, ${node.pool}
//	${<VAR>}             a variable of the task's environment
//
// A reference that resolves to nothing is left as written, so that text
// meant for another program (a shell's ${HOME}) passes through.
func (e *taskEnv) replace(s string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for {
		start := strings.Index(s, "${")
		if start < 0 {
			break
		}
		end := strings.IndexByte(s[start+2:], '}')
		if end < 0 {
			break
		}
		end += start + 2
		b.WriteString(s[:start])
		if v, ok := e.lookup(strings.TrimSpace(s[start+2 : end])); ok {
			b.WriteString(v)
		} else {
			b.WriteString(s[start : end+1])
		}
		s = s[end+1:]
	}
	b.WriteString(s)
	return b.String()
}

func (e *taskEnv) lookup(key string) (string, bool) {
	if v, ok := e.vars[key]; ok {
		return v, true
	}
	n := e.node
	if n == nil {
		return "", false
	}
	if name, ok := strings.CutPrefix(key, "attr."); ok {
		v, ok := n.Attributes[name]
		return v, ok
	}
	if name, ok := strings.CutPrefix(key, "meta."); ok {
		v, ok := n.Meta[name]
		return v, ok
	}
	switch key {
	case "node.unique.id":
		return n.ID, true
	case "node.unique.name":
		return n.Name, true
	case "node.datacenter":
		return n.Datacenter, true
	case "node.class":
		return n.NodeClass, true
	case "node.pool":
		return n.NodePool, true
	}
	return "", false
}

// interpolatedConfig returns a task's config block with every string in
// it, however deeply nested in maps and lists, interpolated; keys are left
// as they are. A block without a reference is returned as it is, shared
// with the job: drivers only read it, and a copy per running task would
// stay in memory, in its handle, as long as the task runs.
func (e *taskEnv) interpolatedConfig(config map[string]any) map[string]any {
	if !hasReference(config) {
		return config
	}
	return e.replaceConfig(config)
}

// hasReference reports whether a string in v, at any depth, holds a ${...}
// reference.
func hasReference(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.Contains(v, "${")
	case map[string]any:
		for _, elem := range v {
			if hasReference(elem) {
				return true
			}
		}
	case map[string]string:
		for _, s := range v {
			if strings.Contains(s, "${") {
				return true
			}
		}
	case []any:
		for _, elem := range v {
			if hasReference(elem) {
				return true
			}
		}
	case []string:
		for _, s := range v {
			if strings.Contains(s, "${") {
				return true
			}
		}
	case []map[string]any:
		for _, m := range v {
			if hasReference(m) {
				return true
			}
		}
	}
	return false
}

// replaceConfig returns a copy of config with every string in it
// interpolated.
func (e *taskEnv) replaceConfig(config map[string]any) map[string]any {
	if config == nil {
		return nil
	}
	out := make(map[string]any, len(config))
	for k, v := range config {
		out[k] = e.replaceValue(v)
	}
	return out
}

func (e *taskEnv) replaceValue(v any) any {
	switch v := v.(type) {
	case string:
		return e.replace(v)
	case map[string]any:
		return e.replaceConfig(v)
	case map[string]string:
		out := make(map[string]string, len(v))
		for k, s := range v {
			out[k] = e.replace(s)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, elem := range v {
			out[i] = e.replaceValue(elem)
		}
		return out
	case []string:
		out := make([]string, len(v))
		for i, s := range v {
			out[i] = e.replace(s)
		}
		return out
	case []map[string]any:
		out := make([]map[string]any, len(v))
		for i, m := range v {
			out[i] = e.replaceConfig(m)
		}
		return out
	default:
		return v
	}
}
