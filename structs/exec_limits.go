package structs

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// What Linux's execve takes, which every task start goes through (the
// raw_exec supervisor's exec of the task, a container's first process).
// Past either bound execve fails with E2BIG, and the task with it.
const (
	// LinuxArgMax is the most bytes a program's arguments and
	// environment may take together, as execve counts them (each
	// string, its terminating NUL and its 8-byte pointer): ARG_MAX, a
	// quarter of the stack limit, 2 MiB with the usual 8 MiB.
	LinuxArgMax = 2 << 20
	// MaxExecStringBytes is the most bytes one argument or one
	// NAME=value may take, its NUL included: Linux's MAX_ARG_STRLEN,
	// 32 pages of 4 KiB.
	MaxExecStringBytes = 128 << 10
	// MaxSubmittedExecBytes bounds what a submitted job's task is started
	// with, as far as it is known at submit: the literal arguments, env
	// block and meta (which becomes NOMAD_META_ variables). It leaves
	// 512 KiB of LinuxArgMax for what the client adds: the NOMAD_*
	// variables, paths, the program's path, interpolated values.
	MaxSubmittedExecBytes = LinuxArgMax - 512<<10
	// MaxStartedExecBytes bounds what the client starts a task with, all
	// of it known: LinuxArgMax less 4 KiB (PATH_MAX) for the program's
	// path, which execve counts too.
	MaxStartedExecBytes = LinuxArgMax - 4<<10
)

// execPointerBytes is what execve counts for each string's pointer.
const execPointerBytes = 8

// ExecString is one string a task is started with, named for messages by
// the field it comes from.
type ExecString struct {
	// Field names where the string comes from: `env "PATH"`,
	// `config args #2`.
	Field string
	// Name is the variable's name for an environment variable, empty for
	// an argument.
	Name  string
	Value string
}

// size is the string's bytes as the program receives it, NUL included.
func (s ExecString) size() int {
	if s.Name == "" {
		return len(s.Value) + 1
	}
	return len(s.Name) + 1 + len(s.Value) + 1
}

// execConfigKeys are the config keys whose strings become a program's
// arguments, in Drover's drivers and in Nomad's: raw_exec's and exec's
// command and args, docker's command, entrypoint and args.
var execConfigKeys = []string{"command", "entrypoint", "args"}

// ExecArgs returns the strings of a driver config that become the
// program's arguments. Values of another type are the driver schema's
// to refuse.
func ExecArgs(config map[string]any) []ExecString {
	var out []ExecString
	for _, key := range execConfigKeys {
		switch v := config[key].(type) {
		case string:
			out = append(out, ExecString{Field: "config " + key, Value: v})
		case []string:
			for i, s := range v {
				out = append(out, ExecString{Field: fmt.Sprintf("config %s #%d", key, i+1), Value: s})
			}
		case []any:
			for i, e := range v {
				if s, ok := e.(string); ok {
					out = append(out, ExecString{Field: fmt.Sprintf("config %s #%d", key, i+1), Value: s})
				}
			}
		}
	}
	return out
}

// ExecEnv returns env as ExecStrings, in the order of its names.
func ExecEnv(env map[string]string) []ExecString {
	out := make([]ExecString, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, ExecString{Field: fmt.Sprintf("env %q", k), Name: k, Value: env[k]})
	}
	return out
}

// CheckExec returns what execve would refuse of a program started with
// strs: a NUL byte in a value (it would end the string there), a string
// over MaxExecStringBytes, and all of them together over limit, which
// limitName names in the message. Nil when execve takes them.
func CheckExec(strs []ExecString, limit int, limitName string) []string {
	out := checkExecStrings(strs)
	if problem := checkExecTotal(execItems(strs), limit, limitName); problem != "" {
		out = append(out, problem)
	}
	return out
}

// checkExecStrings checks each of strs on its own.
func checkExecStrings(strs []ExecString) []string {
	var out []string
	for _, s := range strs {
		if strings.IndexByte(s.Value, 0) >= 0 {
			out = append(out, fmt.Sprintf("%s must not contain a NUL byte", s.Field))
		}
		if n := s.size(); n > MaxExecStringBytes {
			out = append(out, fmt.Sprintf("%s is %d bytes, more than the %d one argument or environment variable may take (Linux's MAX_ARG_STRLEN)",
				s.Field, n, MaxExecStringBytes))
		}
	}
	return out
}

// execItem is what a field costs in execve's count: one string or
// several (a meta block).
type execItem struct {
	field string
	bytes int
}

func execItems(strs []ExecString) []execItem {
	out := make([]execItem, len(strs))
	for i, s := range strs {
		out[i] = execItem{field: s.Field, bytes: s.size() + execPointerBytes}
	}
	return out
}

// checkExecTotal is the problem of items over limit together, naming the
// three largest, or "".
func checkExecTotal(items []execItem, limit int, limitName string) string {
	total := 0
	for _, it := range items {
		total += it.bytes
	}
	if total <= limit {
		return ""
	}
	sorted := slices.Clone(items)
	slices.SortStableFunc(sorted, func(a, b execItem) int { return cmp.Compare(b.bytes, a.bytes) })
	names := make([]string, 0, 3)
	for _, it := range sorted[:min(3, len(sorted))] {
		names = append(names, fmt.Sprintf("%s (%d bytes)", it.field, it.bytes))
	}
	return fmt.Sprintf("arguments and environment take %d bytes as execve counts them (each string, its NUL and its pointer), more than %d (%s); the largest: %s",
		total, limit, limitName, strings.Join(names, ", "))
}

// validateEnv checks the names of a task's env block: execve takes
// NAME=value strings, so a name with "=" would split elsewhere, and one
// with a NUL byte would end there.
func validateEnv(p *problems, where string, env map[string]string) {
	for _, k := range slices.Sorted(maps.Keys(env)) {
		switch {
		case k == "":
			p.add(where, "env key must not be empty")
		case strings.IndexByte(k, 0) >= 0:
			p.add(where, "env key %q must not contain a NUL byte", k)
		case strings.Contains(k, "="):
			p.add(where, "env key %q must not contain \"=\"", k)
		}
	}
}

// validateTaskExec holds each task's literal arguments, env block and
// meta to what execve takes, within MaxSubmittedExecBytes. Interpolated
// values are counted as written; the client checks them again once
// known. A meta block is checked once, where it is set, and its share of
// a task's environment is summed level by level, so that the cost stays
// linear in the job's size however many tasks share a large job meta.
func (j *Job) validateTaskExec(p *problems) {
	const limitName = "Linux's ARG_MAX of 2 MiB less 512 KiB for what the client adds"
	job := newMetaLevel(nil, j.Meta)
	addAll(p, "Job", checkExecStrings(metaStrings(j.Meta)))
	for i, tg := range j.TaskGroups {
		if tg == nil {
			continue
		}
		gwhere := groupWhere(i, tg)
		group := newMetaLevel(job, tg.Meta)
		addAll(p, gwhere, checkExecStrings(metaStrings(tg.Meta)))
		for k, t := range tg.Tasks {
			if t == nil {
				continue
			}
			twhere := taskWhere(gwhere, k, t)
			strs := append(ExecArgs(t.Config), submittedEnv(t.Env)...)
			addAll(p, twhere, checkExecStrings(strs))
			addAll(p, twhere, checkExecStrings(metaStrings(t.Meta)))

			task := newMetaLevel(group, t.Meta)
			items := append(execItems(strs), execItems(metaEnv(t.Meta))...)
			if n := group.total - task.hiddenAbove; n > 0 {
				items = append(items, execItem{field: "the group's meta", bytes: n})
			}
			if n := job.total - group.hiddenAbove - task.hiddenJob; n > 0 {
				items = append(items, execItem{field: "the job's meta", bytes: n})
			}
			if problem := checkExecTotal(items, MaxSubmittedExecBytes, limitName); problem != "" {
				p.add(twhere, "%s", problem)
			}
		}
	}
}

func addAll(p *problems, where string, problems []string) {
	for _, problem := range problems {
		p.add(where, "%s", problem)
	}
}

// metaLevel is what one meta block (the job's, a group's, a task's) adds
// to a task's environment, its keys overriding those of the level above.
type metaLevel struct {
	above *metaLevel
	meta  map[string]string
	// total is the bytes of this level's NOMAD_META_ variables.
	total int
	// hiddenAbove is the bytes of the level just above that this level's
	// keys override; hiddenJob, for a task's level, those of the job's
	// level that neither the group nor the task lets through.
	hiddenAbove, hiddenJob int
}

func newMetaLevel(above *metaLevel, meta map[string]string) *metaLevel {
	l := &metaLevel{above: above, meta: meta}
	for k, v := range meta {
		l.total += metaCost(k, v)
		if above == nil {
			continue
		}
		if av, ok := above.meta[k]; ok {
			l.hiddenAbove += metaCost(k, av)
		} else if top := above.above; top != nil {
			// A key the group does not set but the job does.
			if jv, ok := top.meta[k]; ok {
				l.hiddenJob += metaCost(k, jv)
			}
		}
	}
	return l
}

// metaCost is what a meta entry costs in execve's count: its
// NOMAD_META_ variable and, for a key not in upper case, the upper-cased
// one.
func metaCost(k, v string) int {
	cost := 0
	for _, s := range metaVariables(k, v) {
		cost += s.size() + execPointerBytes
	}
	return cost
}

// submittedEnv is ExecEnv without the names validateEnv refuses, which
// it reports.
func submittedEnv(env map[string]string) []ExecString {
	out := ExecEnv(env)
	return slices.DeleteFunc(out, func(s ExecString) bool {
		return s.Name == "" || strings.ContainsAny(s.Name, "=\x00")
	})
}

// metaEnv is what meta becomes in a task's environment: a NOMAD_META_
// variable under the key as written and another under it in upper case.
func metaEnv(meta map[string]string) []ExecString {
	var out []ExecString
	for _, k := range slices.Sorted(maps.Keys(meta)) {
		out = append(out, metaVariables(k, meta[k])...)
	}
	return out
}

// metaStrings is one variable per meta entry, to check each value once.
func metaStrings(meta map[string]string) []ExecString {
	out := make([]ExecString, 0, len(meta))
	for _, k := range slices.Sorted(maps.Keys(meta)) {
		out = append(out, metaVariables(k, meta[k])[0])
	}
	return out
}

// metaVariables are the variables one meta entry becomes.
func metaVariables(k, v string) []ExecString {
	field := fmt.Sprintf("meta %q", k)
	vars := []ExecString{{Field: field, Name: "NOMAD_META_" + k, Value: v}}
	if upper := strings.ToUpper(k); upper != k {
		vars = append(vars, ExecString{Field: field + " (upper-cased)", Name: "NOMAD_META_" + upper, Value: v})
	}
	return vars
}
