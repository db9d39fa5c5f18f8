package structs

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

var timeType = reflect.TypeFor[time.Time]()

// filler sets every exported field of a value, recursively, to a value no
// other field has, so that a test comparing two filled values notices a
// field that was dropped or swapped. Two fillers fill the same type alike.
type filler struct{ n int }

func fillNew[T any]() *T {
	v := new(T)
	(&filler{}).fill(reflect.ValueOf(v).Elem())
	return v
}

func (f *filler) next() int { f.n++; return f.n }

func (f *filler) fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		f.fill(v.Elem())
	case reflect.Struct:
		if v.Type() == timeType {
			v.Set(reflect.ValueOf(time.Unix(int64(f.next()), 0).UTC()))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				f.fill(v.Field(i))
			}
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		for range 2 {
			k := reflect.New(v.Type().Key()).Elem()
			f.fill(k)
			e := reflect.New(v.Type().Elem()).Elem()
			f.fill(e)
			v.SetMapIndex(k, e)
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			f.fill(v.Index(i))
		}
	case reflect.Interface:
		v.Set(reflect.ValueOf(fmt.Sprintf("any%d", f.next())))
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", f.next()))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := int64(f.next())
		for v.OverflowInt(n) {
			n /= 2
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n := uint64(f.next())
		for v.OverflowUint(n) {
			n /= 2
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(f.next()) + 0.5)
	default:
		panic(fmt.Sprintf("filler: unhandled kind %s", v.Kind()))
	}
}

// mustNotShare fails when a and b share any pointer, map or slice
// backing array: a deep copy must not.
func mustNotShare(t *testing.T, a, b any) {
	t.Helper()
	for _, path := range sharedPaths(reflect.ValueOf(a), reflect.ValueOf(b), "") {
		t.Errorf("copy shares %s with the original", path)
	}
}

func sharedPaths(a, b reflect.Value, path string) []string {
	var out []string
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return nil
		}
		if a.Pointer() == b.Pointer() {
			out = append(out, "pointer "+path)
		}
		out = append(out, sharedPaths(a.Elem(), b.Elem(), path)...)
	case reflect.Interface:
		if !a.IsNil() && !b.IsNil() {
			out = append(out, sharedPaths(a.Elem(), b.Elem(), path)...)
		}
	case reflect.Map:
		if a.Len() == 0 || b.Len() == 0 {
			return nil
		}
		if a.Pointer() == b.Pointer() {
			out = append(out, "map "+path)
		}
		iter := a.MapRange()
		for iter.Next() {
			if bv := b.MapIndex(iter.Key()); bv.IsValid() {
				out = append(out, sharedPaths(iter.Value(), bv, fmt.Sprintf("%s[%v]", path, iter.Key()))...)
			}
		}
	case reflect.Slice:
		if a.Len() == 0 || b.Len() == 0 {
			return nil
		}
		if a.Pointer() == b.Pointer() {
			out = append(out, "slice "+path)
		}
		for i := range min(a.Len(), b.Len()) {
			out = append(out, sharedPaths(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i))...)
		}
	case reflect.Struct:
		if a.Type() == timeType {
			return nil
		}
		for i := range a.NumField() {
			if f := a.Type().Field(i); f.IsExported() {
				out = append(out, sharedPaths(a.Field(i), b.Field(i), path+"."+f.Name)...)
			}
		}
	}
	return out
}

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
