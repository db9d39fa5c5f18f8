package structs

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Template is a task's template block: a file rendered from a Go template
// into the task's directory before the task starts, and again when the
// data it reads changes. The names are Nomad's (its api.Template).
type Template struct {
	// SourcePath is a template file inside the task directory (read after
	// the artifacts are fetched); EmbeddedTmpl is the template's text
	// inline. One of them is set.
	SourcePath   string
	EmbeddedTmpl string
	// DestPath is where the result goes, relative to the task directory
	// ("local/x", "/local/x" and "${NOMAD_SECRETS_DIR}/x" alike).
	DestPath string
	// ChangeMode says what a changed file does to the running task:
	// TemplateChangeModeNoop, Restart, Signal (ChangeSignal) or Script
	// (ChangeScript).
	ChangeMode   string
	ChangeSignal string
	ChangeScript *ChangeScript
	// Once renders the template before the first start only: it is never
	// re-rendered while the task runs.
	Once bool
	// Splay is the most a change's action is delayed, at random, so that
	// many tasks do not restart at once.
	Splay time.Duration
	// Perms is the file's mode, in octal ("0644").
	Perms string
	// Uid and Gid own the file; nil leaves it the agent's.
	Uid *int
	Gid *int
	// LeftDelim and RightDelim delimit the template's actions.
	LeftDelim  string
	RightDelim string
	// Envvars reads the rendered file as KEY=VALUE lines into the task's
	// environment.
	Envvars bool
	// ErrMissingKey fails the render when the template indexes a map
	// with a key it does not have, instead of writing "<no value>".
	ErrMissingKey bool
	// Wait bounds how long a change waits for the data to settle before
	// the file is written again; nil renders at once.
	Wait *WaitConfig
}

// ChangeScript is the script a template's change_mode "script" runs in
// the task when its file changed.
type ChangeScript struct {
	Command string
	Args    []string
	// Timeout bounds one run of the script.
	Timeout time.Duration
	// FailOnError kills the task when the script fails.
	FailOnError bool
}

// WaitConfig is a template's wait block: a change is written once the
// data has not changed for Min, or at the latest Max after the first
// change.
type WaitConfig struct {
	Min *time.Duration
	Max *time.Duration
}

// Task events of template rendering, as Nomad's.
const (
	TaskHookFailed  = "Task hook failed"
	TaskHookMessage = "Task hook message"
)

// Template change modes.
const (
	TemplateChangeModeNoop    = "noop"
	TemplateChangeModeRestart = "restart"
	TemplateChangeModeSignal  = "signal"
	TemplateChangeModeScript  = "script"
)

// Template defaults, as Nomad's.
const (
	DefaultTemplateChangeMode    = TemplateChangeModeRestart
	DefaultTemplateChangeSignal  = "SIGHUP"
	DefaultTemplateSplay         = 5 * time.Second
	DefaultTemplatePerms         = "0644"
	DefaultTemplateLeftDelim     = "{{"
	DefaultTemplateRightDelim    = "}}"
	DefaultChangeScriptTimeout   = 5 * time.Second
	maxTemplateLength            = 1 << 20
	maxTemplateDelimLength       = 64
	templateDestEscapesMessage   = "destination %q leaves the allocation directory"
	templateEnvSignalIncompatMsg = "change_mode %q cannot pass a new environment to the running task: env = true needs %q or %q"
)

// Copy returns a deep copy of the template.
func (t *Template) Copy() *Template {
	if t == nil {
		return nil
	}
	c := *t
	if t.ChangeScript != nil {
		cs := *t.ChangeScript
		cs.Args = slices.Clone(t.ChangeScript.Args)
		c.ChangeScript = &cs
	}
	c.Uid = clonePtr(t.Uid)
	c.Gid = clonePtr(t.Gid)
	if t.Wait != nil {
		c.Wait = &WaitConfig{Min: clonePtr(t.Wait.Min), Max: clonePtr(t.Wait.Max)}
	}
	return &c
}

// canonicalize fills the defaults that no written value can mean
// otherwise: an empty mode, perms or delimiter. The splay's and the
// script's timeout defaults apply where the block leaves them out (the
// wire conversion), since zero is a value one may write.
func (t *Template) canonicalize() {
	if t == nil {
		return
	}
	if t.ChangeMode == "" {
		t.ChangeMode = DefaultTemplateChangeMode
	}
	t.ChangeSignal = strings.ToUpper(t.ChangeSignal)
	if t.ChangeMode == TemplateChangeModeSignal && t.ChangeSignal == "" {
		t.ChangeSignal = DefaultTemplateChangeSignal
	}
	if t.Perms == "" {
		t.Perms = DefaultTemplatePerms
	}
	if t.LeftDelim == "" {
		t.LeftDelim = DefaultTemplateLeftDelim
	}
	if t.RightDelim == "" {
		t.RightDelim = DefaultTemplateRightDelim
	}
}

// TemplateWhere names a template of a task in messages: by destination,
// with its position.
func TemplateWhere(taskWhere string, i int, t *Template) string {
	if t == nil || t.DestPath == "" {
		return fmt.Sprintf("%s template #%d", taskWhere, i+1)
	}
	return fmt.Sprintf("%s template #%d (%s)", taskWhere, i+1, t.DestPath)
}

// validateTemplates checks a task's template blocks: each alone, and
// that no two write the same file.
func (t *Task) validateTemplates(p *problems, where string) {
	dests := make(map[string]int, len(t.Templates))
	for i, tmpl := range t.Templates {
		tw := TemplateWhere(where, i, tmpl)
		tmpl.validate(p, tw)
		if tmpl == nil || tmpl.DestPath == "" {
			continue
		}
		key := path.Clean(strings.TrimPrefix(tmpl.DestPath, "/"))
		if j, ok := dests[key]; ok {
			p.add(tw, "destination %q is also template #%d's", tmpl.DestPath, j+1)
		}
		dests[key] = i
	}
}

// validate checks one template block.
func (t *Template) validate(p *problems, where string) {
	if t == nil {
		p.add(where, "Missing definition (null)")
		return
	}
	switch {
	case t.SourcePath == "" && t.EmbeddedTmpl == "":
		p.add(where, "needs a source or data")
	case t.SourcePath != "" && t.EmbeddedTmpl != "":
		p.add(where, "sets both source and data: one says what to render")
	}
	if len(t.EmbeddedTmpl) > maxTemplateLength {
		p.add(where, "data must be at most %d bytes, got %d", maxTemplateLength, len(t.EmbeddedTmpl))
	}
	if t.SourcePath != "" && templatePathEscapes(t.SourcePath) {
		p.add(where, "source %q leaves the allocation directory", t.SourcePath)
	}
	switch {
	case t.DestPath == "":
		p.add(where, "Missing destination")
	case templatePathEscapes(t.DestPath):
		p.add(where, templateDestEscapesMessage, t.DestPath)
	}
	t.validateChange(p, where)
	validateDuration(p, where, "splay", t.Splay)
	if _, err := ParseTemplatePerms(t.Perms); err != nil {
		p.add(where, "perms: %v", err)
	}
	if t.Uid != nil && *t.Uid < 0 {
		p.add(where, "uid must not be negative, got %d", *t.Uid)
	}
	if t.Gid != nil && *t.Gid < 0 {
		p.add(where, "gid must not be negative, got %d", *t.Gid)
	}
	t.validateDelims(p, where)
	t.Wait.validate(p, where)
}

// validateChange checks change_mode and what it needs.
func (t *Template) validateChange(p *problems, where string) {
	switch t.ChangeMode {
	case TemplateChangeModeNoop, TemplateChangeModeRestart:
	case TemplateChangeModeSignal:
		switch key := signalKey(t.ChangeSignal); {
		case t.ChangeSignal == "":
			p.add(where, "change_mode %q needs a change_signal", t.ChangeMode)
		case !slices.Contains(SignalNames, key):
			p.add(where, "change_signal %q is not a known signal", t.ChangeSignal)
		}
	case TemplateChangeModeScript:
		cs := t.ChangeScript
		switch {
		case cs == nil:
			p.add(where, "change_mode %q needs a change_script block", t.ChangeMode)
		case cs.Command == "":
			p.add(where, "change_script needs a command")
		default:
			validateDuration(p, where, "change_script timeout", cs.Timeout)
		}
	default:
		p.add(where, "change_mode must be one of %q, %q, %q or %q, got %q",
			TemplateChangeModeNoop, TemplateChangeModeRestart, TemplateChangeModeSignal, TemplateChangeModeScript, t.ChangeMode)
	}
	if t.ChangeScript != nil && t.ChangeMode != TemplateChangeModeScript {
		p.add(where, "change_script is used only with change_mode %q, got %q", TemplateChangeModeScript, t.ChangeMode)
	}
	if t.Envvars && (t.ChangeMode == TemplateChangeModeSignal || t.ChangeMode == TemplateChangeModeScript) {
		p.add(where, templateEnvSignalIncompatMsg, t.ChangeMode, TemplateChangeModeRestart, TemplateChangeModeNoop)
	}
}

// validateDelims checks the delimiters: set, short, and without spaces or
// newlines, which the template language would never match.
func (t *Template) validateDelims(p *problems, where string) {
	for _, d := range []struct{ name, d string }{{"left_delimiter", t.LeftDelim}, {"right_delimiter", t.RightDelim}} {
		name, d := d.name, d.d
		switch {
		case d == "":
			p.add(where, "%s must not be empty", name)
		case len(d) > maxTemplateDelimLength:
			p.add(where, "%s must be at most %d bytes, got %d", name, maxTemplateDelimLength, len(d))
		case strings.ContainsAny(d, " \t\r\n"):
			p.add(where, "%s %q must not contain white space", name, d)
		}
	}
}

func (w *WaitConfig) validate(p *problems, where string) {
	if w == nil {
		return
	}
	if w.Min != nil {
		validateDuration(p, where, "wait min", *w.Min)
	}
	if w.Max != nil {
		validateDuration(p, where, "wait max", *w.Max)
	}
	if w.Min != nil && w.Max != nil && *w.Max < *w.Min {
		p.add(where, "wait max (%s) must not be less than wait min (%s)", *w.Max, *w.Min)
	}
}

// ParseTemplatePerms parses a template's perms, an octal file mode of at
// most 0777 (Nomad takes no set-id or sticky bits either).
func ParseTemplatePerms(perms string) (uint32, error) {
	mode, err := strconv.ParseUint(perms, 8, 32)
	if err != nil || mode > 0o777 {
		return 0, fmt.Errorf("%q is not an octal file mode such as \"0644\"", perms)
	}
	return uint32(mode), nil
}

// templatePathEscapes reports whether a template's path, as written,
// climbs out of the allocation directory. An absolute path is taken
// relative to the task directory, as Nomad does ("/local/x"), and a path
// that begins with a variable (${NOMAD_SECRETS_DIR}/x) is resolved by the
// client, which checks it again once interpolated.
func templatePathEscapes(p string) bool {
	if strings.HasPrefix(p, "${") {
		return false
	}
	// The task directory sits one level below the allocation directory.
	return !isLocalPath(path.Join("task", strings.TrimPrefix(p, "/")))
}

// isLocalPath reports whether p (slash-separated) stays within its
// directory.
func isLocalPath(p string) bool {
	p = path.Clean(p)
	return p != ".." && !strings.HasPrefix(p, "../") && !path.IsAbs(p)
}

// templateFields are a template's fields as the job diff shows them.
func (t *Task) templateFields() []map[string]string {
	if t == nil {
		return nil
	}
	var out []map[string]string
	for _, tmpl := range t.Templates {
		if tmpl == nil {
			continue
		}
		m := map[string]string{
			"SourcePath":    tmpl.SourcePath,
			"DestPath":      tmpl.DestPath,
			"EmbeddedTmpl":  tmpl.EmbeddedTmpl,
			"ChangeMode":    tmpl.ChangeMode,
			"ChangeSignal":  tmpl.ChangeSignal,
			"Once":          strconv.FormatBool(tmpl.Once),
			"Splay":         strconv.FormatInt(int64(tmpl.Splay), 10),
			"Perms":         tmpl.Perms,
			"LeftDelim":     tmpl.LeftDelim,
			"RightDelim":    tmpl.RightDelim,
			"Envvars":       strconv.FormatBool(tmpl.Envvars),
			"ErrMissingKey": strconv.FormatBool(tmpl.ErrMissingKey),
		}
		addOptionalInt(m, "Uid", tmpl.Uid)
		addOptionalInt(m, "Gid", tmpl.Gid)
		if cs := tmpl.ChangeScript; cs != nil {
			m["ChangeScript.Command"] = cs.Command
			m["ChangeScript.Args"] = strings.Join(cs.Args, " ")
			m["ChangeScript.Timeout"] = strconv.FormatInt(int64(cs.Timeout), 10)
			m["ChangeScript.FailOnError"] = strconv.FormatBool(cs.FailOnError)
		}
		if w := tmpl.Wait; w != nil {
			addOptionalInt64(m, "Wait.Min", (*int64)(w.Min))
			addOptionalInt64(m, "Wait.Max", (*int64)(w.Max))
		}
		out = append(out, m)
	}
	return out
}

func addOptionalInt(m map[string]string, key string, v *int) {
	if v != nil {
		m[key] = strconv.Itoa(*v)
	}
}

func addOptionalInt64(m map[string]string, key string, v *int64) {
	if v != nil {
		m[key] = strconv.FormatInt(*v, 10)
	}
}
