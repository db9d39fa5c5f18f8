package templatetest

import (
	"context"
	"slices"

	"github.com/drover-io/drover/internal/template"
)

// SetServices replaces the registrations of namespace ns with regs,
// bumping the index as a change of the services table does.
func (m *Variables) SetServices(ns string, regs ...template.Service) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.index++
	m.services = slices.DeleteFunc(m.services, func(s template.Service) bool { return s.Namespace == ns })
	for _, s := range regs {
		s.Namespace = ns
		m.services = append(m.services, s)
	}
	close(m.changed)
	m.changed = make(chan struct{})
}

// ReadServices implements template.VariableSource.
func (m *Variables) ReadServices(ctx context.Context, q template.ServiceQuery) ([]template.Service, uint64, error) {
	index := m.wait(ctx, q.MinIndex)
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []template.Service
	for _, s := range m.services {
		if s.Namespace == q.Namespace && (q.Name == "" || s.ServiceName == q.Name) {
			s.Tags = slices.Clone(s.Tags)
			out = append(out, s)
		}
	}
	return out, index, nil
}

// ReadServices implements template.VariableSource.
func (Unreachable) ReadServices(ctx context.Context, _ template.ServiceQuery) ([]template.Service, uint64, error) {
	<-ctx.Done()
	return nil, 0, ctx.Err()
}
