// Package unsupported is the one table of what Nomad has and Drover does
// not: the job fields and jobspec blocks and arguments it does not
// implement, each with what Drover does about it, and the HTTP routes,
// CLI commands and drivers it lacks.
//
// The agent reads the table to refuse a submitted job field whose absence
// would change what runs or when (a 400 naming it), and to warn about one
// whose absence changes nothing the job does; the jobspec parser reads it
// to say that a block or argument is Nomad's and not supported yet, with
// a pointer to the documentation; the documentation's "Differences from
// Nomad" page is generated from it, and tests hold it against Nomad's job
// types, the parser's schema, the agent's routes, the CLI's commands and
// the drivers, so that it cannot drift from any of them.
//
// It imports nothing of Drover's, so that the api, the jobspec parser and
// the agent can all read it.
package unsupported

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// DocsPage is the documentation page that lists what the table holds,
// as a path in Drover's repository.
const DocsPage = "website/content/docs/differences.md"

// Decision is what Drover does with a job field it does not implement.
type Decision int

const (
	// Refuse: the job is refused (400), because running it without the
	// field would change what runs, where, or when.
	Refuse Decision = iota + 1
	// Warn: the job is accepted and the answer's warnings name the field,
	// because its absence changes nothing the job does.
	Warn
)

func (d Decision) String() string {
	switch d {
	case Refuse:
		return "refused"
	case Warn:
		return "warned"
	}
	return "unknown"
}

// Field is a field of Nomad's job that Drover does not implement.
type Field struct {
	// JSON is the field's path in a job's JSON, relative to the job, "[]"
	// standing for any element of a list: "TaskGroups[].Tasks[].Templates".
	// Empty for a jobspec form with no JSON field of its own.
	JSON string
	// HCL lists where the field is written in a jobspec, each as the
	// enclosing block's type and the field's name: "task.template". Empty
	// for a field the API alone carries.
	HCL []string
	// Block is set when the jobspec form is a block, not an argument.
	Block bool
	// Decision is what Drover does with a job that sets the field.
	Decision Decision
	// Reason says, in a few words, why: for a refused field what running
	// without it would change, for a warned one why nothing changes.
	Reason string
	// Default, when set, is the JSON of the value Nomad's own client fills
	// in when the field is absent (its canonical default). A refused field
	// holding no more than that asks for nothing a job without it does
	// not ask for, and is warned about instead.
	Default string
	// Present, when set, makes an object or a list asks for something even
	// when all it holds are zero values: Nomad writes connect {
	// sidecar_service {} } as an object of defaults.
	Present bool
}

// Fields returns the table of job fields, in the order the documentation
// lists them.
func Fields() []Field {
	return slices.Clone(fields())
}

// indexPattern matches the element indexes and map keys of a concrete
// JSON path: [0], ["web"].
var indexPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[(\d+|"(?:[^"\\]|\\.)*")\]`) })

// GenericPath writes a concrete JSON path, with element indexes and map
// keys ("TaskGroups[0].Tasks[1].Templates"), the way the table does
// ("TaskGroups[].Tasks[].Templates").
func GenericPath(path string) string {
	return indexPattern().ReplaceAllString(path, "[]")
}

// LookupJSON finds the field at path, a concrete or generic JSON path
// relative to the job. Names match without regard to case, as Go's JSON
// decoding matches them.
func LookupJSON(path string) (Field, bool) {
	generic := GenericPath(path)
	for _, f := range fields() {
		if f.JSON != "" && strings.EqualFold(f.JSON, generic) {
			return f, true
		}
	}
	return Field{}, false
}

// LookupHCL finds the field a jobspec writes as name inside a block of
// type parent ("group", "update").
func LookupHCL(parent, name string) (Field, bool) {
	want := parent + "." + name
	for _, f := range fields() {
		if slices.Contains(f.HCL, want) {
			return f, true
		}
	}
	return Field{}, false
}

// Decide is what Drover does with the value raw (decoded from JSON into
// any) of field f: f's decision, except that a refused field holding
// only Nomad's default is warned about. isDefault says when that is why.
func (f Field) Decide(raw any) (d Decision, isDefault bool) {
	if f.Decision == Refuse && f.Default != "" {
		var def any
		if err := json.Unmarshal([]byte(f.Default), &def); err == nil && withinDefault(raw, def) {
			return Warn, true
		}
	}
	return f.Decision, false
}

// withinDefault reports whether every value raw sets is the default's:
// keys raw leaves out, or sets to null, take the default anyway.
func withinDefault(raw, def any) bool {
	switch r := raw.(type) {
	case nil:
		return true
	case map[string]any:
		d, ok := def.(map[string]any)
		if !ok {
			return false
		}
		for key, value := range r {
			dv, found := lookupKey(d, key)
			if value != nil && (!found || !withinDefault(value, dv)) {
				return false
			}
		}
		return true
	default:
		return jsonEqual(raw, def)
	}
}

// lookupKey finds key in m as Go's JSON decoding would: exactly, or else
// without regard to case.
func lookupKey(m map[string]any, key string) (any, bool) {
	if v, ok := m[key]; ok {
		return v, true
	}
	for k, v := range m {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return nil, false
}

func jsonEqual(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}
