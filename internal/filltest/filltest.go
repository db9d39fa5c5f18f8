// Package filltest fills values for tests that must notice a field that
// was dropped, swapped or shared: by a copy, a conversion or an encoding.
// It is imported by tests only.
package filltest

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

var timeType = reflect.TypeFor[time.Time]()

// New returns a *T whose exported fields are all set, recursively, each to
// a value no other field has. Two calls fill the same type alike, so their
// results are equal. A type that holds itself (a diff of nested blocks) is
// filled one level deep: the inner pointers and slices of it stay nil.
func New[T any]() *T {
	v := new(T)
	(&filler{inProgress: map[reflect.Type]bool{}}).fill(reflect.ValueOf(v).Elem())
	return v
}

type filler struct {
	n int
	// inProgress holds the struct types being filled further up.
	inProgress map[reflect.Type]bool
}

// recursive reports whether t, or what t points to, is a struct type
// being filled further up.
func (f *filler) recursive(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return f.inProgress[t]
}

func (f *filler) next() int { f.n++; return f.n }

func (f *filler) fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if f.recursive(v.Type()) {
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		f.fill(v.Elem())
	case reflect.Struct:
		if v.Type() == timeType {
			v.Set(reflect.ValueOf(time.Unix(int64(f.next()), 0).UTC()))
			return
		}
		f.inProgress[v.Type()] = true
		defer delete(f.inProgress, v.Type())
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
		if f.recursive(v.Type().Elem()) {
			return
		}
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
		panic(fmt.Sprintf("filltest: unhandled kind %s", v.Kind()))
	}
}

// MustNotShare fails the test when a and b share any pointer, map or slice
// backing array: a deep copy, or a conversion that promises not to share,
// must not.
func MustNotShare(t testing.TB, a, b any) {
	t.Helper()
	for _, path := range sharedPaths(reflect.ValueOf(a), reflect.ValueOf(b), "") {
		t.Errorf("the two values share %s", path)
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
