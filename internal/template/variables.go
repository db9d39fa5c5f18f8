package template

import (
	"context"
	"errors"
	"strings"
)

// VariableSource serves Nomad variables to templates, on behalf of one
// task (its workload identity decides what it may read). Each call may
// block: with MinIndex above zero it returns once the answer's index is
// above MinIndex, or when ctx is done, as a blocking query does.
type VariableSource interface {
	// ReadVariable returns the variable at q.Path, or nil when there is
	// none, with the index the answer is as of.
	ReadVariable(ctx context.Context, q VarQuery) (*Variable, uint64, error)
	// ListVariables returns the variables under the prefix q.Path, with
	// the index the answer is as of.
	ListVariables(ctx context.Context, q VarQuery) ([]VariableMeta, uint64, error)
	// ReadServices returns the registrations of the service q.Name, or
	// of every service of q.Namespace when q.Name is empty, with the
	// index the answer is as of (nomadService, nomadServices).
	ReadServices(ctx context.Context, q ServiceQuery) ([]Service, uint64, error)
}

// VarQuery is one read or list of variables.
type VarQuery struct {
	// Namespace is the task's job's, unless the template names another
	// ("path@namespace").
	Namespace string
	// Path is a variable's path, or a prefix to list.
	Path string
	// MinIndex makes the call wait for an answer newer than it; zero
	// answers at once.
	MinIndex uint64
}

// Variable is a Nomad variable with its items in the clear.
type Variable struct {
	VariableMeta
	Items map[string]string
}

// VariableMeta is what a list says of a variable.
type VariableMeta struct {
	Namespace   string
	Path        string
	CreateIndex uint64
	ModifyIndex uint64
	CreateTime  int64
	ModifyTime  int64
}

// ErrNoVariables is the error of nomadVar and its kin where the client
// has no way to read variables.
var ErrNoVariables = errors.New("this client cannot read Nomad variables")

// VarItems are a variable's items as a template sees them: {{ .key }}
// prints an item's value, and range goes through them by key.
type VarItems map[string]VarItem

// VarItem is one item of a variable.
type VarItem struct {
	Key, Value string
}

// String is the item's value, as a template prints it.
func (i VarItem) String() string { return i.Value }

// Keys lists the items' keys, sorted.
func (v VarItems) Keys() []string {
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return keys
}

// Values lists the items' values, in the order of their keys.
func (v VarItems) Values() []string {
	keys := v.Keys()
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = v[k].Value
	}
	return out
}

// Tuples lists the items, in the order of their keys.
func (v VarItems) Tuples() []VarItem {
	keys := v.Keys()
	out := make([]VarItem, len(keys))
	for i, k := range keys {
		out[i] = v[k]
	}
	return out
}

// varQuery splits "path@namespace" as nomadVar takes it; a path without
// one is in ns.
func varQuery(arg, ns string) VarQuery {
	arg = strings.TrimPrefix(arg, "/")
	if path, other, ok := strings.Cut(arg, "@"); ok && other != "" {
		return VarQuery{Path: path, Namespace: other}
	}
	return VarQuery{Path: arg, Namespace: ns}
}

// Dep is a read a render made that can change: the task runner watches it
// from Index on.
type Dep struct {
	// List says whether Query is a list (nomadVarList) or a read.
	List  bool
	Query VarQuery
	// Service says the read is of services, ServiceQuery.
	Service      bool
	ServiceQuery ServiceQuery
	// Index is the index the render's answer was as of.
	Index uint64
}

// Wait blocks until the answer to d changes (its index passes d.Index),
// or ctx is done.
func (d Dep) Wait(ctx context.Context, src VariableSource) error {
	q := d.Query
	q.MinIndex = max(d.Index, 1)
	for {
		var (
			index uint64
			err   error
		)
		switch {
		case d.Service:
			sq := d.ServiceQuery
			sq.MinIndex = q.MinIndex
			_, index, err = src.ReadServices(ctx, sq)
		case d.List:
			_, index, err = src.ListVariables(ctx, q)
		default:
			_, index, err = src.ReadVariable(ctx, q)
		}
		switch {
		case err != nil:
			return err
		case index > d.Index:
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		}
	}
}
