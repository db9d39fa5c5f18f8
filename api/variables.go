package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Variable is a Nomad Variable: key/value items at a path of a namespace,
// as /v1/var/:path reads and writes it.
type Variable struct {
	Namespace   string
	Path        string
	CreateIndex uint64
	ModifyIndex uint64
	// CreateTime and ModifyTime are Unix nanoseconds.
	CreateTime int64
	ModifyTime int64
	Items      VariableItems
	Lock       *VariableLock `json:",omitempty"`
}

// VariableMetadata is a variable without its items, as /v1/vars lists it.
type VariableMetadata struct {
	Namespace   string
	Path        string
	CreateIndex uint64
	ModifyIndex uint64
	CreateTime  int64
	ModifyTime  int64
	Lock        *VariableLock `json:",omitempty"`
}

// VariableLock is a lock on a variable. TTL and LockDelay are Go
// durations ("15s").
type VariableLock struct {
	ID        string
	TTL       string
	LockDelay string
}

// VariableItems are a variable's key/value pairs.
type VariableItems map[string]string

// ErrVariableNotFound is returned by Read for a path that holds no
// variable.
var ErrVariableNotFound = errors.New("variable not found")

// ErrCASConflict is a write refused by its check-and-set index or by a
// lock: Conflict is the variable as it is (its metadata only when the
// token may not read it).
type ErrCASConflict struct {
	CheckIndex uint64
	Conflict   *Variable
}

func (e ErrCASConflict) Error() string {
	return fmt.Sprintf("cas conflict: expected ModifyIndex %d; found %d", e.CheckIndex, e.Conflict.ModifyIndex)
}

// Variables is the handle on the variables endpoints.
type Variables struct {
	client *Client
}

// Variables returns the handle on the variables endpoints.
func (c *Client) Variables() *Variables { return &Variables{client: c} }

// varPath is the URL of the variable at path, each segment escaped.
func varPath(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return "/v1/var/" + strings.Join(parts, "/")
}

// List returns the metadata of the variables whose path starts with
// q.Prefix, in q.Namespace.
func (v *Variables) List(q *QueryOptions) ([]*VariableMetadata, *QueryMeta, error) {
	var resp []*VariableMetadata
	qm, err := v.client.query("/v1/vars", &resp, q)
	if err != nil {
		return nil, nil, err
	}
	return resp, qm, nil
}

// Read returns the variable at path, or ErrVariableNotFound.
func (v *Variables) Read(path string, q *QueryOptions) (*Variable, *QueryMeta, error) {
	var out Variable
	qm, err := v.client.query(varPath(path), &out, q)
	if IsNotFound(err) {
		return nil, nil, ErrVariableNotFound
	}
	if err != nil {
		return nil, nil, err
	}
	return &out, qm, nil
}

// Put writes the variable; with checkIndex it is a check-and-set (0: only
// if there is none), refused with an ErrCASConflict.
func (v *Variables) Put(vr *Variable, checkIndex *uint64, q *WriteOptions) (*Variable, *WriteMeta, error) {
	var params url.Values
	if checkIndex != nil {
		params = url.Values{"cas": {strconv.FormatUint(*checkIndex, 10)}}
	}
	return v.write(http.MethodPut, vr.Path, params, vr, checkIndex, q)
}

// Delete removes the variable at path; with checkIndex only if its
// ModifyIndex is that, else an ErrCASConflict.
func (v *Variables) Delete(path string, checkIndex *uint64, q *WriteOptions) (*WriteMeta, error) {
	var params url.Values
	if checkIndex != nil {
		params = url.Values{"cas": {strconv.FormatUint(*checkIndex, 10)}}
	}
	_, wm, err := v.write(http.MethodDelete, path, params, nil, checkIndex, q)
	return wm, err
}

// Lock runs a lock operation on the variable: "lock-acquire",
// "lock-renew" or "lock-release". A lock held by another is an
// ErrCASConflict.
func (v *Variables) Lock(operation string, vr *Variable, q *WriteOptions) (*Variable, *WriteMeta, error) {
	return v.write(http.MethodPut, vr.Path, url.Values{operation: {""}}, vr, nil, q)
}

// write sends a variable write and turns a 409 into an ErrCASConflict.
func (v *Variables) write(method, path string, params url.Values, in *Variable, checkIndex *uint64, q *WriteOptions) (*Variable, *WriteMeta, error) {
	var out Variable
	var dst any = &out
	if method == http.MethodDelete {
		dst = nil
	}
	var body any
	if in != nil {
		body = in
	}
	wm, err := v.client.write(method, varPath(path), params, body, dst, q)
	var unexpected UnexpectedResponseError
	if errors.As(err, &unexpected) && unexpected.StatusCode == http.StatusConflict {
		conflict := new(Variable)
		if jerr := json.Unmarshal([]byte(unexpected.Body), conflict); jerr != nil {
			return nil, nil, err
		}
		e := ErrCASConflict{Conflict: conflict}
		if checkIndex != nil {
			e.CheckIndex = *checkIndex
		}
		return nil, nil, e
	}
	if err != nil || dst == nil {
		return nil, wm, err
	}
	return &out, wm, nil
}
