package servicecheck

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

// RestartFunc asks for the restart of the task whose check reached its
// check_restart limit; reason names the check. It is called from a
// goroutine of its own, which the Set does not wait for: the restart
// stops the run, and with it the Set.
type RestartFunc func(reason string)

// Set runs the checks of one run of a task, or of a group's checks that
// belong to no task, from Start to Stop.
type Set struct {
	checks  []*Check
	restart RestartFunc
	logger  hclog.Logger

	mu       sync.Mutex
	statuses map[string]Status
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

// NewSet returns a Set of checks; restart (nil: no task to restart) is
// called when a check's check_restart says so.
func NewSet(checks []*Check, restart RestartFunc, logger hclog.Logger) *Set {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	return &Set{checks: checks, restart: restart, logger: logger, statuses: make(map[string]Status, len(checks))}
}

// Start runs every check, the first probe at once and then every
// interval; the run's grace counts from now. A Set starts once.
func (s *Set) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil || len(s.checks) == 0 {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	started := time.Now()
	for _, c := range s.checks {
		s.statuses[c.ID] = status(c, Result{Health: c.Initial}, started)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.run(ctx, c, started)
		}()
	}
}

// Stop stops every check and waits for their probes to end. Their
// statuses go: they were the run's.
func (s *Set) Stop() {
	s.mu.Lock()
	cancel := s.cancel
	s.cancel = func() {}
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	s.wg.Wait()
	s.mu.Lock()
	clear(s.statuses)
	s.mu.Unlock()
}

// Statuses returns the latest status of each check.
func (s *Set) Statuses() []Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Status, 0, len(s.statuses))
	for _, st := range s.statuses {
		out = append(out, st)
	}
	return out
}

// run probes c every interval until ctx ends.
func (s *Set) run(ctx context.Context, c *Check, started time.Time) {
	t := tracker{thresholds: c.thresholds, health: c.Initial}
	restarts := newRestartCounter(c.Restart, started)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		probeCtx, cancel := context.WithTimeout(ctx, c.Timeout)
		res := c.Probe.Probe(probeCtx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		now := time.Now()
		res.Health = t.observe(res.Health)
		s.mu.Lock()
		if _, kept := s.statuses[c.ID]; kept {
			s.statuses[c.ID] = status(c, res, now)
		}
		s.mu.Unlock()
		if restarts.observe(res.Health, now) && s.restart != nil {
			reason := fmt.Sprintf("healthcheck: check %q unhealthy", c.Name)
			s.logger.Info("restarting task: its check is unhealthy", "check", c.Name, "task", c.Task)
			go s.restart(reason)
		}
		timer.Reset(c.Interval)
	}
}

func status(c *Check, r Result, at time.Time) Status {
	return Status{
		ID: c.ID, Check: c.Name, Group: c.Group, Mode: c.Mode, Service: c.Service, Task: c.Task,
		Status: r.Health.apiStatus(), Output: r.Output, StatusCode: r.StatusCode, Timestamp: at.Unix(),
	}
}
