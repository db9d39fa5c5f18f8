package structs

import (
	"fmt"
	"time"
)

// Update health checks: what makes a deployment's allocation healthy.
const (
	// UpdateHealthChecks waits for the group's service checks to pass.
	// Drover runs no service checks yet, so it judges such a group by its
	// task states (UpdateHealthTaskStates), as Nomad does a group without
	// checks.
	UpdateHealthChecks = "checks"
	// UpdateHealthTaskStates waits for every task to run for
	// MinHealthyTime.
	UpdateHealthTaskStates = "task_states"
	// UpdateHealthManual leaves the health to an operator, through the
	// deployment allocation-health endpoint.
	UpdateHealthManual = "manual"
)

// UpdateStrategy is a group's update block, the job's merged under it:
// how a new job version replaces the group's allocations. MaxParallel 0
// replaces every allocation at once, without a deployment.
type UpdateStrategy struct {
	Stagger          time.Duration
	MaxParallel      int
	HealthCheck      string
	MinHealthyTime   time.Duration
	HealthyDeadline  time.Duration
	ProgressDeadline time.Duration
	AutoRevert       bool
	AutoPromote      bool
	Canary           int
}

// Nomad's defaults, for the fields an update block leaves out.
const (
	DefaultUpdateStagger          = 30 * time.Second
	DefaultUpdateMaxParallel      = 1
	DefaultUpdateMinHealthyTime   = 10 * time.Second
	DefaultUpdateHealthyDeadline  = 5 * time.Minute
	DefaultUpdateProgressDeadline = 10 * time.Minute
)

// MaxUpdateParallel bounds max_parallel, and so the allocations one
// deployment step replaces.
const MaxUpdateParallel = 10000

// Copy returns a copy of the strategy.
func (u *UpdateStrategy) Copy() *UpdateStrategy {
	return clonePtr(u)
}

// Rolling reports whether the strategy replaces allocations in steps
// that a deployment paces.
func (u *UpdateStrategy) Rolling() bool {
	return u != nil && u.MaxParallel > 0
}

// UsesDeployments reports whether jobs of this type honour an update
// block. Nomad ignores it for batch and sysbatch work, and so does Drover.
func UsesDeployments(jobType string) bool {
	return jobType == JobTypeService || jobType == JobTypeSystem
}

// validateUpdate checks an update block of a job of type jobType; nil is
// fine.
func validateUpdate(p *problems, where, jobType string, u *UpdateStrategy) {
	if u == nil {
		return
	}
	if where == "" {
		where = "update"
	} else {
		where += ": update"
	}
	switch u.HealthCheck {
	case UpdateHealthChecks, UpdateHealthTaskStates, UpdateHealthManual:
	default:
		p.add(where, "health_check must be %q, %q or %q, got %q",
			UpdateHealthChecks, UpdateHealthTaskStates, UpdateHealthManual, u.HealthCheck)
	}
	if u.MaxParallel < 0 || u.MaxParallel > MaxUpdateParallel {
		p.add(where, "max_parallel must be between 0 and %d, got %d", MaxUpdateParallel, u.MaxParallel)
	}
	if u.Canary < 0 {
		p.add(where, "canary must not be negative, got %d", u.Canary)
	} else if u.Canary > 0 && jobType != JobTypeSystem {
		// A system job's canary is ignored, with a warning (updateWarnings).
		p.add(where, "canary = %d: Drover does not place canaries yet; use canary = 0 (a rolling update, max_parallel at a time)", u.Canary)
	}
	validateDuration(p, where, "stagger", u.Stagger)
	validateDuration(p, where, "min_healthy_time", u.MinHealthyTime)
	validateDuration(p, where, "healthy_deadline", u.HealthyDeadline)
	validateDuration(p, where, "progress_deadline", u.ProgressDeadline)
	if u.HealthyDeadline <= 0 {
		p.add(where, "healthy_deadline must be greater than zero, got %s", u.HealthyDeadline)
	}
	if u.MinHealthyTime >= u.HealthyDeadline {
		p.add(where, "min_healthy_time (%s) must be less than healthy_deadline (%s)", u.MinHealthyTime, u.HealthyDeadline)
	}
	if u.ProgressDeadline != 0 && u.ProgressDeadline < u.HealthyDeadline {
		p.add(where, "progress_deadline (%s) must be zero or at least healthy_deadline (%s)", u.ProgressDeadline, u.HealthyDeadline)
	}
}

// updateWarnings says what of the job's update blocks Drover ignores: a
// system job's canaries, as Nomad before 1.11 did (its system jobs
// enforced max_parallel and stagger only).
func (j *Job) updateWarnings() []string {
	if j.Type != JobTypeSystem {
		return nil
	}
	var out []string
	for i, tg := range j.TaskGroups {
		if tg == nil || tg.Update == nil || tg.Update.Canary <= 0 {
			continue
		}
		out = append(out, fmt.Sprintf("%s: update: canary = %d is ignored: Drover updates a system job max_parallel nodes at a time, without canaries",
			groupWhere(i, tg), tg.Update.Canary))
	}
	return out
}
