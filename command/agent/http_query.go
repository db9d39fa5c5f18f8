package agent

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

// maxIDLength bounds an ID or prefix taken from a URL. Job IDs are at most
// structs.MaxNameLength, but a periodic child's ID adds a suffix to its
// parent's.
const maxIDLength = 512

// queryOptions are the query parameters every read shares.
type queryOptions struct {
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

// serverQuery is what the server's read methods take of the options.
func (o queryOptions) serverQuery() nomad.QueryOptions {
	return nomad.QueryOptions{
		Namespace:  o.Namespace,
		Prefix:     o.Prefix,
		MinIndex:   o.MinIndex,
		MaxWait:    o.Wait,
		AllowStale: o.Stale,
	}
}

// parseQueryOptions reads index, wait, prefix, namespace, region and stale
// from the URL, rejecting values that do not parse.
func parseQueryOptions(r *http.Request) (queryOptions, error) {
	q := r.URL.Query()
	opts := queryOptions{
		Namespace: parseNamespace(q),
		Region:    q.Get("region"),
		Prefix:    q.Get("prefix"),
		Stale:     flagSet(q, "stale"),
	}
	if err := checkID("namespace", opts.Namespace); err != nil {
		return opts, err
	}
	if err := checkPrefix(opts.Prefix); err != nil {
		return opts, err
	}
	index, err := parseIndex(q)
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

// idQuery reads a read request for one object: its ID from the URL, named
// in errors by what ("job ID"), and the query options.
func idQuery(r *http.Request, what string) (string, queryOptions, error) {
	id := r.PathValue("id")
	if err := checkID(what, id); err != nil {
		return "", queryOptions{}, err
	}
	opts, err := parseQueryOptions(r)
	return id, opts, err
}

// parseIndex reads ?index, a raft index; 0 when absent.
func parseIndex(q url.Values) (uint64, error) {
	s := q.Get("index")
	if s == "" {
		return 0, nil
	}
	index, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, badRequest("invalid index %q: must be a non-negative integer", s)
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
		return 0, badRequest("invalid wait %q: must be a duration such as \"5s\" or \"5000ms\"", s)
	}
	return min(d, maxBlockingWait), nil
}

// parseNamespace is the namespace a request names, "default" when none.
func parseNamespace(q url.Values) string {
	if ns := q.Get("namespace"); ns != "" {
		return ns
	}
	return structs.DefaultNamespace
}

// writeNamespace is the namespace of a write: writes address one namespace,
// so "*" is not one.
func writeNamespace(r *http.Request) (string, error) {
	ns := parseNamespace(r.URL.Query())
	if ns == nomad.AllNamespaces {
		return "", badRequest("namespace %q selects every namespace; a write needs one namespace", ns)
	}
	return ns, checkID("namespace", ns)
}

// flagSet reports whether a boolean query parameter is on: present without
// a value ("?stale") or with a true value ("?stale=true").
func flagSet(q url.Values, name string) bool {
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

// parseBoolParam reads an optional boolean parameter, rejecting garbage.
func parseBoolParam(r *http.Request, name string) (bool, error) {
	q := r.URL.Query()
	values, ok := q[name]
	if !ok || strings.TrimSpace(values[0]) == "" {
		return ok, nil
	}
	b, err := strconv.ParseBool(values[0])
	if err != nil {
		return false, badRequest("invalid %s %q: must be true or false", name, values[0])
	}
	return b, nil
}

// checkID rejects an ID from a URL that no object can have: empty, too long,
// or holding characters that are not printable, such as NUL or ESC.
func checkID(kind, id string) error {
	if id == "" {
		return badRequest("missing %s", kind)
	}
	if len(id) > maxIDLength {
		return badRequest("invalid %s: longer than %d bytes", kind, maxIDLength)
	}
	return checkPrintable(kind, id)
}

// checkPrefix is checkID for a prefix, which may be empty.
func checkPrefix(prefix string) error {
	if len(prefix) > maxIDLength {
		return badRequest("invalid prefix: longer than %d bytes", maxIDLength)
	}
	return checkPrintable("prefix", prefix)
}

// checkPrintable refuses an ID that is not printable, by the rule register
// holds names to (structs.NonPrintable): whatever can be created can be
// addressed, and nothing else.
func checkPrintable(kind, s string) error {
	if bad := structs.NonPrintable(s); bad != "" {
		return badRequest("invalid %s %q: must contain only printable characters, not %s", kind, s, bad)
	}
	return nil
}
