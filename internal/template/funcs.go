package template

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"
	"unicode"
	"unicode/utf8"

	sockaddrtmpl "github.com/hashicorp/go-sockaddr/template"
)

// maxLoop bounds loop's count: a template cannot spin the client.
const maxLoop = 100_000

// funcNames are the functions Drover's templates offer (text/template's
// own besides), by consul-template's names. The functions themselves are
// bound to one render (render.funcs); this is the list Check reads.
var funcNames = func() map[string]struct{} {
	out := map[string]struct{}{}
	for name := range (&render{}).funcs() {
		out[name] = struct{}{}
	}
	return out
}()

// funcs returns the functions of this render.
func (r *render) funcs() template.FuncMap {
	return template.FuncMap{
		// The task's world.
		"env":             r.env,
		"envOrDefault":    r.envOrDefault,
		"mustEnv":         r.mustEnv,
		"file":            r.file,
		"nomadVar":        r.nomadVar,
		"nomadVarList":    r.nomadVarList,
		"nomadVarExists":  r.nomadVarExists,
		"nomadService":    r.nomadService,
		"nomadServices":   r.nomadServices,
		"scratch":         func() *scratch { return r.scratch },
		"executeTemplate": r.executeTemplate,
		"sockaddr":        sockaddrFunc,
		"timestamp":       timestamp,

		// Strings.
		"contains":        func(sub, s string) bool { return strings.Contains(s, sub) },
		"indent":          indent,
		"join":            func(sep string, a []string) string { return strings.Join(a, sep) },
		"replaceAll":      func(old, new, s string) string { return strings.ReplaceAll(s, old, new) },
		"regexMatch":      regexMatch,
		"regexReplaceAll": regexReplaceAll,
		"split":           split,
		"splitToMap":      splitToMap,
		"toLower":         strings.ToLower,
		"toUpper":         strings.ToUpper,
		"toTitle":         toTitle,
		"trim":            func(cut, s string) string { return strings.Trim(s, cut) },
		"trimPrefix":      func(prefix, s string) string { return strings.TrimPrefix(s, prefix) },
		"trimSuffix":      func(suffix, s string) string { return strings.TrimSuffix(s, suffix) },
		"trimSpace":       strings.TrimSpace,
		"base64Decode":    base64Decode(base64.StdEncoding),
		"base64Encode":    func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) },
		"base64URLDecode": base64Decode(base64.URLEncoding),
		"base64URLEncode": func(s string) string { return base64.URLEncoding.EncodeToString([]byte(s)) },
		"md5sum":          func(s string) string { h := md5.Sum([]byte(s)); return hex.EncodeToString(h[:]) },
		"sha256Hex":       func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) },

		// Parsing and encoding.
		"parseBool":    strconv.ParseBool,
		"parseFloat":   func(s string) (float64, error) { return strconv.ParseFloat(s, 64) },
		"parseInt":     func(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) },
		"parseUint":    func(s string) (uint64, error) { return strconv.ParseUint(s, 10, 64) },
		"parseJSON":    parseJSON,
		"toJSON":       toJSON,
		"toJSONPretty": toJSONPretty,

		// Collections.
		"containsAll":          containsAll,
		"containsAny":          containsAny,
		"containsNone":         containsNone,
		"containsNotAll":       containsNotAll,
		"in":                   in,
		"loop":                 loop,
		"mergeMap":             func(dst, src map[string]any) map[string]any { return mergeMaps(dst, src, false) },
		"mergeMapWithOverride": func(dst, src map[string]any) map[string]any { return mergeMaps(dst, src, true) },

		// Arithmetic.
		"add":      arith(func(a, b float64) float64 { return a + b }, func(a, b int64) int64 { return a + b }),
		"subtract": arith(func(a, b float64) float64 { return b - a }, func(a, b int64) int64 { return b - a }),
		"multiply": arith(func(a, b float64) float64 { return a * b }, func(a, b int64) int64 { return a * b }),
		"divide":   divide,
		"modulo":   modulo,
		"maximum":  arith(maxF, maxI),
		"minimum":  arith(minF, minI),
	}
}

func (r *render) env(name string) string { return r.in.Env[name] }

func (r *render) envOrDefault(name, def string) string {
	if v, ok := r.in.Env[name]; ok && v != "" {
		return v
	}
	return def
}

func (r *render) mustEnv(name string) (string, error) {
	v, ok := r.in.Env[name]
	if !ok {
		return "", fmt.Errorf("environment variable %q is not set", name)
	}
	return v, nil
}

// file reads a file of the task's directory: a missing one is an error.
func (r *render) file(path string) (string, error) {
	if r.in.ReadFile == nil {
		return "", errors.New("file: no files to read here")
	}
	data, err := r.in.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("file %q: %w", path, err)
	}
	return string(data), nil
}

func (r *render) varSource() (VariableSource, error) {
	if r.in.Variables == nil {
		return nil, ErrNoVariables
	}
	return r.in.Variables, nil
}

// nomadVar reads one variable; nothing at the path renders as no items
// (with {{ with }} skipping its body), and its change is watched.
func (r *render) nomadVar(path string) (VarItems, error) {
	src, err := r.varSource()
	if err != nil {
		return nil, err
	}
	q := varQuery(path, r.in.Namespace)
	v, ok := r.reads[q]
	if !ok {
		var index uint64
		if v, index, err = src.ReadVariable(r.ctx, q); err != nil {
			return nil, fmt.Errorf("nomadVar %q: %w", path, err)
		}
		r.reads[q] = v
		r.deps = append(r.deps, Dep{Query: q, Index: index})
	}
	if v == nil {
		return nil, nil
	}
	items := make(VarItems, len(v.Items))
	for k, val := range v.Items {
		items[k] = VarItem{Key: k, Value: val}
	}
	return items, nil
}

func (r *render) nomadVarExists(path string) (bool, error) {
	items, err := r.nomadVar(path)
	return items != nil, err
}

// nomadVarList lists the variables under a prefix ("" for all the
// namespace's); its change is watched.
func (r *render) nomadVarList(prefix ...string) ([]VariableMeta, error) {
	src, err := r.varSource()
	if err != nil {
		return nil, err
	}
	if len(prefix) > 1 {
		return nil, errors.New("nomadVarList takes at most one prefix")
	}
	q := varQuery(strings.Join(prefix, ""), r.in.Namespace)
	if list, ok := r.lists[q]; ok {
		return list, nil
	}
	list, index, err := src.ListVariables(r.ctx, q)
	if err != nil {
		return nil, fmt.Errorf("nomadVarList %q: %w", q.Path, err)
	}
	r.lists[q] = list
	r.deps = append(r.deps, Dep{List: true, Query: q, Index: index})
	return list, nil
}

// executeTemplate runs a template the text defines ({{ define "x" }}),
// with optional data.
func (r *render) executeTemplate(name string, data ...any) (string, error) {
	var d any
	if len(data) == 1 {
		d = data[0]
	} else if len(data) > 1 {
		return "", errors.New("executeTemplate takes at most one value")
	}
	var b strings.Builder
	w := &limitedWriter{w: &b, left: maxOutput, ctx: r.ctx}
	if err := r.tmpl.ExecuteTemplate(w, name, d); err != nil {
		return "", err
	}
	return b.String(), nil
}

// sockaddrFunc evaluates a go-sockaddr template ("GetPrivateIP") on the
// client's addresses.
func sockaddrFunc(args ...string) (string, error) {
	expr := fmt.Sprintf("{{ %s }}", strings.Join(args, " "))
	return sockaddrtmpl.Parse(expr)
}

// timestamp is the time now, in RFC 3339 or the given Go layout; "unix"
// gives Unix seconds.
func timestamp(layout ...string) string {
	now := time.Now().UTC()
	if len(layout) == 0 {
		return now.Format(time.RFC3339)
	}
	if layout[0] == "unix" {
		return strconv.FormatInt(now.Unix(), 10)
	}
	return now.Format(layout[0])
}

func indent(spaces int, s string) (string, error) {
	if spaces < 0 || spaces > 1000 {
		return "", fmt.Errorf("indent: %d spaces is out of range (0 to 1000)", spaces)
	}
	pad := strings.Repeat(" ", spaces)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = pad + l
		}
	}
	return strings.Join(lines, "\n"), nil
}

func regexMatch(re, s string) (bool, error) {
	compiled, err := regexp.Compile(re)
	if err != nil {
		return false, err
	}
	return compiled.MatchString(s), nil
}

func regexReplaceAll(re, repl, s string) (string, error) {
	compiled, err := regexp.Compile(re)
	if err != nil {
		return "", err
	}
	return compiled.ReplaceAllString(s, repl), nil
}

// split splits s at sep; an empty s is an empty list, not [""].
func split(sep, s string) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return []string{}
	}
	return strings.Split(s, sep)
}

// splitToMap reads "k:v,k2:v2" with the given separators.
func splitToMap(pairSep, kvSep, s string) map[string]string {
	out := map[string]string{}
	for _, pair := range split(pairSep, s) {
		k, v, _ := strings.Cut(pair, kvSep)
		out[k] = v
	}
	return out
}

func toTitle(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		r, size := utf8.DecodeRuneInString(w)
		words[i] = string(unicode.ToTitle(r)) + w[size:]
	}
	return strings.Join(words, " ")
}

func base64Decode(enc *base64.Encoding) func(string) (string, error) {
	return func(s string) (string, error) {
		b, err := enc.DecodeString(s)
		return string(b), err
	}
}

// parseJSON decodes JSON into maps, lists and values; "" is an empty map.
func parseJSON(s string) (any, error) {
	if s == "" {
		return map[string]any{}, nil
	}
	var out any
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, fmt.Errorf("parseJSON: %w", err)
	}
	return out, nil
}

func toJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

func toJSONPretty(v any) (string, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	return string(b), err
}

// asList turns a template value into a list of values.
func asList(v any) ([]any, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return nil, fmt.Errorf("%T is not a list", v)
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out, nil
}

// in reports whether v is in list (a list, or a string to search).
func in(list, v any) (bool, error) {
	if s, ok := list.(string); ok {
		sub, ok := v.(string)
		return ok && strings.Contains(s, sub), nil
	}
	l, err := asList(list)
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(l, func(x any) bool { return reflect.DeepEqual(x, v) }), nil
}

func countIn(vs, list any) (found, total int, err error) {
	values, err := asList(vs)
	if err != nil {
		return 0, 0, err
	}
	for _, v := range values {
		ok, err := in(list, v)
		if err != nil {
			return 0, 0, err
		}
		if ok {
			found++
		}
	}
	return found, len(values), nil
}

func containsAll(vs, list any) (bool, error) {
	f, n, err := countIn(vs, list)
	return f == n, err
}

func containsAny(vs, list any) (bool, error) {
	f, _, err := countIn(vs, list)
	return f > 0, err
}

func containsNone(vs, list any) (bool, error) {
	f, _, err := countIn(vs, list)
	return f == 0, err
}

func containsNotAll(vs, list any) (bool, error) {
	f, n, err := countIn(vs, list)
	return f < n, err
}

// loop yields the integers from start to stop, or from 0 to one bound.
func loop(bounds ...any) ([]int, error) {
	var start, stop int64
	switch len(bounds) {
	case 1:
		n, err := toInt(bounds[0])
		if err != nil {
			return nil, err
		}
		stop = n
	case 2:
		a, err := toInt(bounds[0])
		if err != nil {
			return nil, err
		}
		b, err := toInt(bounds[1])
		if err != nil {
			return nil, err
		}
		start, stop = a, b
	default:
		return nil, errors.New("loop takes one or two bounds")
	}
	if stop-start > maxLoop {
		return nil, fmt.Errorf("loop of %d steps is more than the %d allowed", stop-start, maxLoop)
	}
	var out []int
	for i := start; i < stop; i++ {
		out = append(out, int(i))
	}
	return out, nil
}

func mergeMaps(dst, src map[string]any, override bool) map[string]any {
	out := maps.Clone(dst)
	if out == nil {
		out = map[string]any{}
	}
	for k, v := range src {
		if _, ok := out[k]; !ok || override {
			out[k] = v
		}
	}
	return out
}

func toInt(v any) (int64, error) {
	switch n := v.(type) {
	case string:
		return strconv.ParseInt(n, 10, 64)
	case float32, float64:
		return int64(reflect.ValueOf(n).Float()), nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int64(rv.Uint()), nil
	}
	return 0, fmt.Errorf("%v (%T) is not a number", v, v)
}

func toFloat(v any) (float64, bool, error) {
	switch n := v.(type) {
	case float32, float64:
		return reflect.ValueOf(n).Float(), true, nil
	case string:
		if strings.ContainsAny(n, ".eE") {
			f, err := strconv.ParseFloat(n, 64)
			return f, true, err
		}
	}
	i, err := toInt(v)
	return float64(i), false, err
}

// arith applies an operation in integers, or in floats when either side
// is one; as consul-template, the piped value comes last (b).
func arith(f func(a, b float64) float64, i func(a, b int64) int64) func(a, b any) (any, error) {
	return func(a, b any) (any, error) {
		fa, aFloat, err := toFloat(a)
		if err != nil {
			return nil, err
		}
		fb, bFloat, err := toFloat(b)
		if err != nil {
			return nil, err
		}
		if aFloat || bFloat {
			return f(fa, fb), nil
		}
		ia, _ := toInt(a)
		ib, _ := toInt(b)
		return i(ia, ib), nil
	}
}

func divide(a, b any) (any, error) {
	if fa, _, err := toFloat(a); err == nil && fa == 0 {
		return nil, errors.New("divide by zero")
	}
	return arith(func(a, b float64) float64 { return b / a }, func(a, b int64) int64 { return b / a })(a, b)
}

func modulo(a, b any) (any, error) {
	ia, err := toInt(a)
	if err != nil {
		return nil, err
	}
	ib, err := toInt(b)
	if err != nil {
		return nil, err
	}
	if ia == 0 {
		return nil, errors.New("modulo by zero")
	}
	return ib % ia, nil
}

func maxF(a, b float64) float64 { return max(a, b) }
func maxI(a, b int64) int64     { return max(a, b) }
func minF(a, b float64) float64 { return min(a, b) }
func minI(a, b int64) int64     { return min(a, b) }

// scratch is a template's scratch pad: values set in one place of the
// template, read in another.
type scratch struct {
	values map[string]any
}

// Key reports whether k is set.
func (s *scratch) Key(k string) bool { _, ok := s.values[k]; return ok }

// Get returns k's value.
func (s *scratch) Get(k string) any { return s.values[k] }

// Set sets k, returning nothing to print.
func (s *scratch) Set(k string, v any) string { s.values[k] = v; return "" }

// SetX sets k unless it is set.
func (s *scratch) SetX(k string, v any) string {
	if _, ok := s.values[k]; !ok {
		s.values[k] = v
	}
	return ""
}

// MapSet sets the key mk of the map at k.
func (s *scratch) MapSet(k, mk string, v any) (string, error) {
	m, err := s.mapAt(k)
	if err != nil {
		return "", err
	}
	m[mk] = v
	return "", nil
}

// MapSetX sets the key mk of the map at k, unless it is set.
func (s *scratch) MapSetX(k, mk string, v any) (string, error) {
	m, err := s.mapAt(k)
	if err != nil {
		return "", err
	}
	if _, ok := m[mk]; !ok {
		m[mk] = v
	}
	return "", nil
}

// MapValues lists the values of the map at k, in the order of its keys.
func (s *scratch) MapValues(k string) ([]any, error) {
	m, err := s.mapAt(k)
	if err != nil {
		return nil, err
	}
	keys := slices.Sorted(maps.Keys(m))
	out := make([]any, len(keys))
	for i, key := range keys {
		out[i] = m[key]
	}
	return out, nil
}

func (s *scratch) mapAt(k string) (map[string]any, error) {
	v, ok := s.values[k]
	if !ok {
		m := map[string]any{}
		s.values[k] = m
		return m, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("scratch key %q is not a map", k)
	}
	return m, nil
}

func sortStrings(s []string) { slices.Sort(s) }
