package structs

import (
	"fmt"
	"time"
)

// NamespaceTimeLimits are Drover's bounds on the run time of a
// namespace's jobs. Every field is optional; zero sets no bound.
type NamespaceTimeLimits struct {
	// MaxRunDurationDefault is the max_run_duration of every group of a
	// batch or sysbatch job that gives none, set when the job is
	// submitted.
	MaxRunDurationDefault time.Duration `json:",omitempty"`
	// MaxRunDurationMax is the longest max_run_duration a job may give:
	// its own, each group's, each task's and a dispatch's. A submission
	// past it is refused. A group that gives none gets the default, or
	// this ceiling when the namespace sets no default.
	MaxRunDurationMax time.Duration `json:",omitempty"`
	// AllocDeadlineExtensionMax is how far past its group's own
	// max_run_duration `alloc deadline` may move an allocation's budget.
	// Shortening one is always allowed.
	AllocDeadlineExtensionMax time.Duration `json:",omitempty"`
}

// validate reports every problem with the limits of namespace name.
func (l *NamespaceTimeLimits) validate(name string) []error {
	if l == nil {
		return nil
	}
	var errs []error
	for _, f := range []struct {
		field string
		d     time.Duration
	}{
		{"MaxRunDurationDefault", l.MaxRunDurationDefault},
		{"MaxRunDurationMax", l.MaxRunDurationMax},
		{"AllocDeadlineExtensionMax", l.AllocDeadlineExtensionMax},
	} {
		switch {
		case f.d < 0:
			errs = append(errs, fmt.Errorf("namespace %q: TimeLimits.%s must not be negative, got %s", name, f.field, f.d))
		case f.d > MaxJobDuration:
			errs = append(errs, fmt.Errorf("namespace %q: TimeLimits.%s must be at most %s (100 years), got %s", name, f.field, MaxJobDuration, f.d))
		}
	}
	if l.MaxRunDurationMax > 0 && l.MaxRunDurationDefault > l.MaxRunDurationMax {
		errs = append(errs, fmt.Errorf("namespace %q: TimeLimits.MaxRunDurationDefault %s is longer than TimeLimits.MaxRunDurationMax %s", name, l.MaxRunDurationDefault, l.MaxRunDurationMax))
	}
	return errs
}

// defaultMaxRun is the max_run_duration a group without one gets, zero
// for none.
func (l *NamespaceTimeLimits) defaultMaxRun() time.Duration {
	if l == nil {
		return 0
	}
	if l.MaxRunDurationDefault > 0 {
		return l.MaxRunDurationDefault
	}
	return l.MaxRunDurationMax
}

// ApplyTimeLimits gives every group of the job without a max_run_duration
// the namespace's default (NamespaceTimeLimits.MaxRunDurationDefault, or
// its ceiling), for job types that allow one. It changes the job: call it
// on the copy about to be stored. It reports whether it changed anything.
func (n *Namespace) ApplyTimeLimits(j *Job) bool {
	if n == nil || j == nil || !AllowsMaxRunDuration(j.Type) {
		return false
	}
	d := n.TimeLimits.defaultMaxRun()
	if d <= 0 {
		return false
	}
	changed := false
	for _, tg := range j.TaskGroups {
		if tg != nil && tg.MaxRunDuration == nil {
			tg.MaxRunDuration = &d
			changed = true
		}
	}
	return changed
}

// CheckTimeLimits returns an error naming every max_run_duration of the
// job (its own, its groups', its tasks', a dispatch's) beyond the
// namespace's ceiling, with both values; nil when all are within it.
func (n *Namespace) CheckTimeLimits(j *Job) error {
	if n == nil || n.TimeLimits == nil || n.TimeLimits.MaxRunDurationMax <= 0 || j == nil {
		return nil
	}
	ceiling := n.TimeLimits.MaxRunDurationMax
	var p problems
	over := func(where, field string, d *time.Duration) {
		if d != nil && *d > ceiling {
			p.add(where, "%s %s exceeds namespace %q's ceiling of %s", field, *d, n.Name, ceiling)
		}
	}
	over("", "Job max_run_duration", j.MaxRunDuration)
	over("", "Dispatch max_run_duration", j.DispatchMaxRunDuration)
	for i, tg := range j.TaskGroups {
		if tg == nil {
			continue
		}
		where := groupWhere(i, tg)
		over(where, "max_run_duration", tg.MaxRunDuration)
		for k, t := range tg.Tasks {
			if t != nil {
				over(taskWhere(where, k, t), "max_run_duration", t.MaxRunDuration)
			}
		}
	}
	return p.err()
}

// CheckMaxRunChange returns an error when moving an allocation's budget
// to budget takes it further past its group's own max_run_duration
// (replaces; zero when the group has none) than the namespace allows.
func (n *Namespace) CheckMaxRunChange(budget, replaces time.Duration) error {
	if n == nil || n.TimeLimits == nil || n.TimeLimits.AllocDeadlineExtensionMax <= 0 || replaces <= 0 {
		return nil
	}
	limit := n.TimeLimits.AllocDeadlineExtensionMax
	if ext := budget - replaces; ext > limit {
		return fmt.Errorf("max_run_duration %s moves the deadline %s past the group's %s; namespace %q allows at most %s",
			budget, ext, replaces, n.Name, limit)
	}
	return nil
}
