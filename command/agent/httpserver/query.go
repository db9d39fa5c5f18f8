package httpserver

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/structs"
)

// Blocking query bounds, the server's: a query with an index and no wait
// waits defaultBlockingWait; no query waits longer than maxBlockingWait.
const (
	defaultBlockingWait = nomad.DefaultQueryWait
	maxBlockingWait     = nomad.MaxQueryWait
)

// MaxIDLength bounds an ID or prefix taken from a URL. Job IDs are at most
// structs.MaxNameLength, but a periodic child's ID adds a suffix to its
// parent's.
const MaxIDLength = 512

// QueryOptions are the query parameters every read shares.
type QueryOptions struct {
	// Namespace is the request's namespace; nomad.AllNamespaces ("*")
	// selects every namespace in list endpoints.
	Namespace string
	Region    string
	Prefix    string
	// MinIndex makes the query block until the data's index is above it.
	MinIndex uint64
	// Wait bounds a blocking query; zero when MinIndex is zero.
	Wait  time.Duration
	Stale bool
}

// ServerQuery is what the server's read methods take of the options.
func (o QueryOptions) ServerQuery() nomad.QueryOptions {
	return nomad.QueryOptions{
		Namespace:  o.Namespace,
		Prefix:     o.Prefix,
		MinIndex:   o.MinIndex,
		MaxWait:    o.Wait,
		AllowStale: o.Stale,
	}
}

// ParseQueryOptions reads index, wait, prefix, namespace, region and stale
// from the URL, rejecting values that do not parse.
func ParseQueryOptions(r *http.Request) (QueryOptions, error) {
	q := r.URL.Query()
	opts := QueryOptions{
		Namespace: ParseNamespace(q),
		Region:    q.Get("region"),
		Prefix:    q.Get("prefix"),
		Stale:     FlagSet(q, "stale"),
	}
	if err := CheckID("namespace", opts.Namespace); err != nil {
		return opts, err
	}
	if err := checkPrefix(opts.Prefix); err != nil {
		return opts, err
	}
	index, err := ParseIndex(q)
	if err != nil {
		return opts, err
	}
	opts.MinIndex = index
	wait, err := parseWait(q.Get("wait"))
	if err != nil {
		return opts, err
	}
	if opts.MinIndex > 0 {
		opts.Wait = wait
		if opts.Wait == 0 {
			opts.Wait = defaultBlockingWait
		}
	}
	return opts, nil
}

// IDQuery reads a read request for one object: its ID from the URL, named
// in errors by what ("job ID"), and the query options.
func IDQuery(r *http.Request, what string) (string, QueryOptions, error) {
	return PathQuery(r, "id", what)
}

// PathQuery is IDQuery for the path parameter param ("name", ...).
func PathQuery(r *http.Request, param, what string) (string, QueryOptions, error) {
	v := r.PathValue(param)
	if err := CheckID(what, v); err != nil {
		return "", QueryOptions{}, err
	}
	opts, err := ParseQueryOptions(r)
	return v, opts, err
}

// ParseIndex reads ?index, a raft index; 0 when absent.
func ParseIndex(q url.Values) (uint64, error) {
	s := q.Get("index")
	if s == "" {
		return 0, nil
	}
	index, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, BadRequest("invalid index %q: must be a non-negative integer", s)
	}
	return index, nil
}

// parseWait reads a blocking query's wait time: a Go duration such as "5s"
// or "5000ms", as Nomad's clients send it, capped at maxBlockingWait.
func parseWait(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, BadRequest("invalid wait %q: must be a duration such as \"5s\" or \"5000ms\"", s)
	}
	return min(d, maxBlockingWait), nil
}

// ParseNamespace is the namespace a request names, "default" when none.
func ParseNamespace(q url.Values) string {
	if ns := q.Get("namespace"); ns != "" {
		return ns
	}
	return structs.DefaultNamespace
}

// WriteNamespace is the namespace of a write: writes address one namespace,
// so "*" is not one.
func WriteNamespace(r *http.Request) (string, error) {
	ns := ParseNamespace(r.URL.Query())
	if ns == nomad.AllNamespaces {
		return "", BadRequest("namespace %q selects every namespace; a write needs one namespace", ns)
	}
	return ns, CheckID("namespace", ns)
}

// FlagSet reports whether a boolean query parameter is on: present without
// a value ("?stale") or with a true value ("?stale=true").
func FlagSet(q url.Values, name string) bool {
	values, ok := q[name]
	if !ok {
		return false
	}
	v := strings.TrimSpace(values[0])
	if v == "" {
		return true
	}
	b, err := strconv.ParseBool(v)
	return err == nil && b
}

// ParseBoolParam reads an optional boolean parameter, rejecting garbage.
func ParseBoolParam(r *http.Request, name string) (bool, error) {
	q := r.URL.Query()
	values, ok := q[name]
	if !ok || strings.TrimSpace(values[0]) == "" {
		return ok, nil
	}
	b, err := strconv.ParseBool(values[0])
	if err != nil {
		return false, BadRequest("invalid %s %q: must be true or false", name, values[0])
	}
	return b, nil
}

// CheckID rejects an ID from a URL that no object can have: empty, too long,
// or holding characters that are not printable, such as NUL or ESC.
func CheckID(kind, id string) error {
	if id == "" {
		return BadRequest("missing %s", kind)
	}
	if len(id) > MaxIDLength {
		return BadRequest("invalid %s: longer than %d bytes", kind, MaxIDLength)
	}
	return checkPrintable(kind, id)
}

// checkPrefix is CheckID for a prefix, which may be empty.
func checkPrefix(prefix string) error {
	if len(prefix) > MaxIDLength {
		return BadRequest("invalid prefix: longer than %d bytes", MaxIDLength)
	}
	return checkPrintable("prefix", prefix)
}

// checkPrintable refuses an ID that is not printable, by the rule register
// holds names to (structs.NonPrintable): whatever can be created can be
// addressed, and nothing else.
func checkPrintable(kind, s string) error {
	if bad := structs.NonPrintable(s); bad != "" {
		return BadRequest("invalid %s %q: must contain only printable characters, not %s", kind, s, bad)
	}
	return nil
}
