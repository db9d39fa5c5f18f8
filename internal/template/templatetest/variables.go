// Package templatetest is test support for templates: an in-memory
// source of Nomad variables whose reads block for a change as the
// servers' do.
package templatetest

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/drover-io/drover/internal/template"
	"github.com/drover-io/drover/structs"
)

// Variables is an in-memory template.VariableSource: each Put bumps the
// index and wakes the blocked reads. Its zero value is not usable; call
// NewVariables.
type Variables struct {
	mu    sync.Mutex
	index uint64
	vars  map[string]*template.Variable
	// services are the registrations SetServices wrote.
	services []template.Service
	changed  chan struct{}
}

// NewVariables returns an empty source at index 1.
func NewVariables() *Variables {
	return &Variables{vars: map[string]*template.Variable{}, changed: make(chan struct{}), index: 1}
}

// ForTask serves every task the same variables.
func (m *Variables) ForTask(*structs.Allocation, string) template.VariableSource { return m }

// Put writes the variable at path in namespace ns.
func (m *Variables) Put(ns, path string, items map[string]string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.index++
	m.vars[ns+"\x00"+path] = &template.Variable{
		VariableMeta: template.VariableMeta{Namespace: ns, Path: path, ModifyIndex: m.index},
		Items:        maps.Clone(items),
	}
	close(m.changed)
	m.changed = make(chan struct{})
}

// wait blocks until the index passes min or ctx is done; the caller
// holds nothing.
func (m *Variables) wait(ctx context.Context, min uint64) uint64 {
	for {
		m.mu.Lock()
		index, ch := m.index, m.changed
		m.mu.Unlock()
		if min == 0 || index > min {
			return index
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return index
		}
	}
}

// ReadVariable implements template.VariableSource.
func (m *Variables) ReadVariable(ctx context.Context, q template.VarQuery) (*template.Variable, uint64, error) {
	index := m.wait(ctx, q.MinIndex)
	m.mu.Lock()
	defer m.mu.Unlock()
	v := m.vars[q.Namespace+"\x00"+q.Path]
	if v == nil {
		return nil, index, nil
	}
	c := *v
	c.Items = maps.Clone(v.Items)
	return &c, index, nil
}

// ListVariables implements template.VariableSource.
func (m *Variables) ListVariables(ctx context.Context, q template.VarQuery) ([]template.VariableMeta, uint64, error) {
	index := m.wait(ctx, q.MinIndex)
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []template.VariableMeta
	for _, v := range m.vars {
		if v.Namespace == q.Namespace && strings.HasPrefix(v.Path, q.Path) {
			out = append(out, v.VariableMeta)
		}
	}
	slices.SortFunc(out, func(a, b template.VariableMeta) int { return strings.Compare(a.Path, b.Path) })
	return out, index, nil
}

// Unreachable is a source whose every call blocks until its context is
// done: servers out of reach.
type Unreachable struct{}

// ForTask serves every task the same unreachable source.
func (Unreachable) ForTask(*structs.Allocation, string) template.VariableSource { return Unreachable{} }

// ReadVariable implements template.VariableSource.
func (Unreachable) ReadVariable(ctx context.Context, _ template.VarQuery) (*template.Variable, uint64, error) {
	<-ctx.Done()
	return nil, 0, ctx.Err()
}

// ListVariables implements template.VariableSource.
func (Unreachable) ListVariables(ctx context.Context, _ template.VarQuery) ([]template.VariableMeta, uint64, error) {
	<-ctx.Done()
	return nil, 0, ctx.Err()
}
