package template

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
)

// memVars is an in-memory VariableSource: each Put bumps the index and
// wakes the blocked reads.
type memVars struct {
	mu      sync.Mutex
	index   uint64
	vars    map[string]*Variable
	changed chan struct{}
}

func newMemVars() *memVars {
	return &memVars{vars: map[string]*Variable{}, changed: make(chan struct{}), index: 1}
}

func (m *memVars) put(ns, path string, items map[string]string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.index++
	m.vars[ns+"\x00"+path] = &Variable{
		VariableMeta: VariableMeta{Namespace: ns, Path: path, ModifyIndex: m.index},
		Items:        maps.Clone(items),
	}
	close(m.changed)
	m.changed = make(chan struct{})
}

// wait blocks until the index passes min or ctx is done; the caller
// holds nothing.
func (m *memVars) wait(ctx context.Context, min uint64) uint64 {
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

func (m *memVars) ReadVariable(ctx context.Context, q VarQuery) (*Variable, uint64, error) {
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

func (m *memVars) ListVariables(ctx context.Context, q VarQuery) ([]VariableMeta, uint64, error) {
	index := m.wait(ctx, q.MinIndex)
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []VariableMeta
	for _, v := range m.vars {
		if v.Namespace == q.Namespace && strings.HasPrefix(v.Path, q.Path) {
			out = append(out, v.VariableMeta)
		}
	}
	slices.SortFunc(out, func(a, b VariableMeta) int { return strings.Compare(a.Path, b.Path) })
	return out, index, nil
}
