package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/drover-io/drover/api/unsupported"
	"github.com/drover-io/drover/structs"
)

// Nomad's job JSON has many fields Drover does not implement (Update,
// Services, Networks, Vault, Templates, ...). Go's JSON
// decoder drops them silently; instead, these helpers find them by walking
// the raw JSON alongside the api type it was decoded into, and
// api/unsupported's table decides each one: refused when running the job
// without it would change what runs, where or when, warned about when its
// absence changes nothing the job does.

var jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// foundField is a field of the submitted JSON that the api type has no
// place for: its path ("TaskGroups[0].Services") and its value.
type foundField struct {
	path  string
	value any
}

// unsupportedFields returns every field in raw, a value decoded from JSON
// into any, that type t has no field for and whose value asks for
// something (is not null, false, 0, "" or empty). Matching follows
// encoding/json: json tags, embedded structs, and case-insensitive names.
func unsupportedFields(raw any, t reflect.Type) []foundField {
	var out []foundField
	walkUnsupported(raw, t, "", &out)
	return out
}

func walkUnsupported(raw any, t reflect.Type, path string, out *[]foundField) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshalerType) {
		return // decodes itself (time.Time and the like)
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := raw.(map[string]any)
		if !ok {
			return
		}
		fields := jsonFields(t)
		for _, key := range slices.Sorted(maps.Keys(obj)) {
			value := obj[key]
			field, found := lookupField(fields, key)
			if !found {
				if !isEmptyJSON(value) || asksWhenPresent(joinPath(path, key), value) {
					*out = append(*out, foundField{path: joinPath(path, key), value: value})
				}
				continue
			}
			walkUnsupported(value, field.typ, joinPath(path, field.name), out)
		}
	case reflect.Slice, reflect.Array:
		list, ok := raw.([]any)
		if !ok {
			return
		}
		for i, elem := range list {
			walkUnsupported(elem, t.Elem(), fmt.Sprintf("%s[%d]", path, i), out)
		}
	case reflect.Map:
		obj, ok := raw.(map[string]any)
		if !ok {
			return
		}
		for _, key := range slices.Sorted(maps.Keys(obj)) {
			walkUnsupported(obj[key], t.Elem(), fmt.Sprintf("%s[%q]", path, key), out)
		}
	}
}

// asksWhenPresent reports whether value, an object or a list, asks for
// something by being there: the table marks such fields Present.
func asksWhenPresent(path string, value any) bool {
	switch value.(type) {
	case map[string]any, []any:
	default:
		return false
	}
	f, ok := unsupported.LookupJSON(strings.TrimPrefix(path, "Job."))
	return ok && f.Present
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// jsonField is one field of a struct as encoding/json sees it.
type jsonField struct {
	name string
	typ  reflect.Type
}

// jsonFields lists the JSON fields of struct type t, with the fields of
// embedded structs promoted as encoding/json promotes them.
func jsonFields(t reflect.Type) []jsonField {
	var fields []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				fields = append(fields, jsonFields(ft)...)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fields = append(fields, jsonField{name: name, typ: f.Type})
	}
	return fields
}

// lookupField finds the field a JSON key decodes into: an exact match
// first, then a case-insensitive one, as encoding/json does.
func lookupField(fields []jsonField, key string) (jsonField, bool) {
	for _, f := range fields {
		if f.name == key {
			return f, true
		}
	}
	for _, f := range fields {
		if strings.EqualFold(f.name, key) {
			return f, true
		}
	}
	return jsonField{}, false
}

// isEmptyJSON reports whether a decoded JSON value asks for nothing: null,
// false, 0, "", or an array or object holding only such values.
func isEmptyJSON(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case bool:
		return !v
	case float64:
		return v == 0
	case json.Number:
		return v.String() == "0"
	case string:
		return v == ""
	case []any:
		for _, elem := range v {
			if !isEmptyJSON(elem) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, elem := range v {
			if !isEmptyJSON(elem) {
				return false
			}
		}
		return true
	}
	return false
}

// fieldReport is what a submitted request sets that Drover does not
// implement: the warnings for what was ignored, and the problems that
// refuse the job.
type fieldReport struct {
	warnings []string
	refused  []error
}

// checkUnsupported decodes body again, loosely, and decides each field
// that type t (the request type body was decoded into) does not have.
// Fields inside the request's "Job" are named relative to the job, as
// users know them.
func checkUnsupported(body []byte, t reflect.Type) *fieldReport {
	report := &fieldReport{}
	var raw any
	if err := json.Unmarshal(body, &raw); err != nil {
		return report // the typed decode already reported the problem
	}
	for _, found := range unsupportedFields(raw, t) {
		rest, inJob := strings.CutPrefix(found.path, "Job.")
		if !inJob {
			report.warnings = append(report.warnings, fmt.Sprintf("Request field %q is not supported by Drover and was ignored", found.path))
			continue
		}
		field, known := unsupported.LookupJSON(rest)
		if !known {
			report.warnings = append(report.warnings, fmt.Sprintf("Job field %q is unknown to Drover and was ignored", rest))
			continue
		}
		switch decision, isDefault := field.Decide(found.value); {
		case decision == unsupported.Refuse:
			report.refused = append(report.refused, &refusedField{path: rest, reason: field.Reason})
		case isDefault:
			report.warnings = append(report.warnings, fmt.Sprintf("Job field %q is not supported by Drover and was ignored: it holds Nomad's default, which asks for nothing a job without it does not", rest))
		default:
			report.warnings = append(report.warnings, fmt.Sprintf("Job field %q is not supported by Drover and was ignored: %s", rest, field.Reason))
		}
	}
	return report
}

// refusedField is a job field Drover refuses: a validation problem of
// the job, worded as the others are.
type refusedField struct {
	path, reason string
}

func (r *refusedField) Error() string {
	return fmt.Sprintf("Job field %q is not supported by Drover: %s; see %s", r.path, r.reason, unsupported.DocsPage)
}

// refuses reports whether the request set a field Drover refuses.
func (r *fieldReport) refuses() bool { return r != nil && len(r.refused) > 0 }

// refuse adds the refused fields to err, the outcome of validating the
// job: one *structs.ValidationError lists them and every other problem,
// so that a user sees all at once.
func (r *fieldReport) refuse(err error) error {
	if r == nil || len(r.refused) == 0 {
		return err
	}
	var invalid *structs.ValidationError
	switch {
	case err == nil:
		return &structs.ValidationError{Errors: slices.Clone(r.refused)}
	case errors.As(err, &invalid):
		return &structs.ValidationError{Errors: append(slices.Clone(r.refused), invalid.Errors...)}
	}
	return err
}
