package structs

import (
	"fmt"
	"reflect"
	"strings"
	"time"
)

var timeType = reflect.TypeFor[time.Time]()

// jsonShape lists the JSON paths a type encodes to, each with the kind of
// JSON value there ("ID string", "TaskGroups[].Count number"). Go maps are
// one path ("Meta{} string"), as their keys are data.
func jsonShape(t reflect.Type) map[string]string {
	out := map[string]string{}
	addJSONShape(out, t, "", map[reflect.Type]bool{})
	return out
}

func addJSONShape(out map[string]string, t reflect.Type, path string, inProgress map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == timeType, t.Kind() == reflect.String:
		out[path] = "string"
	case t.Kind() == reflect.Bool:
		out[path] = "bool"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Float64:
		out[path] = "number"
	case t.Kind() == reflect.Interface:
		out[path] = "any"
	case t.Kind() == reflect.Slice:
		addJSONShape(out, t.Elem(), path+"[]", inProgress)
	case t.Kind() == reflect.Map:
		addJSONShape(out, t.Elem(), path+"{}", inProgress)
	case t.Kind() == reflect.Struct:
		if inProgress[t] {
			return
		}
		inProgress[t] = true
		defer delete(inProgress, t)
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() && !f.Anonymous {
				continue
			}
			if f.Anonymous && name == "" {
				addJSONShape(out, f.Type, path, inProgress)
				continue
			}
			if name == "" {
				name = f.Name
			}
			prefix := name
			if path != "" {
				prefix = path + "." + name
			}
			addJSONShape(out, f.Type, prefix, inProgress)
		}
	default:
		panic(fmt.Sprintf("jsonShape: unhandled kind %s at %s", t.Kind(), path))
	}
}
