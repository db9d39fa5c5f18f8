package drivers

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// TaskStore is a driver's set of tracked tasks by ID, safe for concurrent
// use. T is the driver's own task type, usually a pointer.
type TaskStore[T comparable] struct {
	mu    sync.Mutex
	tasks map[string]T
}

// Add tracks t under id; an ID already tracked is an error.
func (s *TaskStore[T]) Add(id string, t T) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.tasks[id]; ok {
		return fmt.Errorf("task %q already exists", id)
	}
	if s.tasks == nil {
		s.tasks = make(map[string]T)
	}
	s.tasks[id] = t
	return nil
}

// Remove stops tracking id if it is still t, so that a task started anew
// under the same ID is not forgotten by its predecessor's clean-up.
func (s *TaskStore[T]) Remove(id string, t T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur, ok := s.tasks[id]; ok && cur == t {
		delete(s.tasks, id)
	}
}

// Get returns the task tracked under id, or an error wrapping
// ErrTaskNotFound.
func (s *TaskStore[T]) Get(id string) (T, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tasks[id]
	if !ok {
		var zero T
		return zero, fmt.Errorf("task %q: %w", id, ErrTaskNotFound)
	}
	return t, nil
}

// Has reports whether id is tracked.
func (s *TaskStore[T]) Has(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.tasks[id]
	return ok
}

// All returns every task tracked, in no particular order.
func (s *TaskStore[T]) All() []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]T, 0, len(s.tasks))
	for _, t := range s.tasks {
		out = append(out, t)
	}
	return out
}

// Clear stops tracking every task.
func (s *TaskStore[T]) Clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.tasks)
}

// StatusOf is InspectTask for a driver whose tasks report their own
// status: the status of the task tracked under id, or an error wrapping
// ErrTaskNotFound.
func StatusOf[T interface {
	comparable
	Status() *TaskStatus
}](s *TaskStore[T], id string) (*TaskStatus, error) {
	t, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	return t.Status(), nil
}

// WaitExit is the channel WaitTask returns for a task whose done channel
// is closed once its result is set: it yields result() after done closes,
// or closes without a value when ctx ends first.
func WaitExit(ctx context.Context, done <-chan struct{}, result func() *ExitResult) <-chan *ExitResult {
	ch := make(chan *ExitResult, 1)
	go func() {
		defer close(ch)
		select {
		case <-done:
			ch <- result()
		case <-ctx.Done():
		}
	}()
	return ch
}

// Closed reports whether ch is closed.
func Closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// WaitClosed waits up to timeout for ch to close, and reports whether it
// did.
func WaitClosed(ch <-chan struct{}, timeout time.Duration) bool {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-ch:
		return true
	case <-timer.C:
		return false
	}
}
