package structs

import (
	"slices"
	"time"
)

// Messages below use the jobspec's attribute names, which is what a user
// wrote.

// MaxJobDuration bounds every duration a job sets. A deadline is a time
// plus a duration in int64 Unix nanoseconds, which end in the year 2262:
// with durations of at most 100 years, CreateTime + max_run_duration (and
// a kill_timeout or shutdown_delay on top) fits until the year 2162,
// where a larger duration would wrap to a time in the past.
const MaxJobDuration = 100 * 365 * 24 * time.Hour

// validateDuration checks that d, named by field, is neither negative nor
// longer than MaxJobDuration.
func validateDuration(p *problems, where, field string, d time.Duration) {
	switch {
	case d < 0:
		p.add(where, "%s must not be negative, got %s", field, d)
	case d > MaxJobDuration:
		p.add(where, "%s must be at most %s (100 years), got %s", field, MaxJobDuration, d)
	}
}

// validateMetaKeys checks that every key of a meta block is printable:
// keys become environment variable names and appear in output.
func validateMetaKeys(p *problems, where string, meta map[string]string) {
	keys := make([]string, 0, len(meta))
	for k := range meta {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if problem := printableProblem(k); problem != "" {
			p.add(where, "meta key %q %s", k, problem)
		}
		if k == "" {
			p.add(where, "meta key must not be empty")
		}
	}
}

// validateRestart checks a restart block; nil is fine (canonicalisation
// fills it). fit holds attempts × delay to the interval.
func validateRestart(p *problems, where string, r *RestartPolicy, fit bool) {
	if r == nil {
		return
	}
	if r.Attempts < 0 {
		p.add(where, "restart attempts must not be negative, got %d", r.Attempts)
	}
	validateDuration(p, where, "restart interval", r.Interval)
	validateDuration(p, where, "restart delay", r.Delay)
	if r.Mode != RestartPolicyModeFail && r.Mode != RestartPolicyModeDelay {
		p.add(where, "restart mode must be %q or %q, got %q", RestartPolicyModeFail, RestartPolicyModeDelay, r.Mode)
	}
	// attempts × delay > interval, without the product overflowing.
	if fit && r.Attempts > 0 && r.Interval > 0 && r.Delay > 0 &&
		r.Delay > r.Interval/time.Duration(r.Attempts) {
		p.add(where, "restart attempts (%d) times delay (%s) must fit in interval (%s)", r.Attempts, r.Delay, r.Interval)
	}
}

// validateReschedule checks a reschedule block; nil is fine.
func validateReschedule(p *problems, where string, r *ReschedulePolicy) {
	if r == nil {
		return
	}
	if r.Attempts < 0 {
		p.add(where, "reschedule attempts must not be negative, got %d", r.Attempts)
	}
	validateDuration(p, where, "reschedule interval", r.Interval)
	validateDuration(p, where, "reschedule delay", r.Delay)
	validateDuration(p, where, "reschedule max_delay", r.MaxDelay)
	switch r.DelayFunction {
	case RescheduleDelayConstant:
	case RescheduleDelayExponential, RescheduleDelayFibonacci:
		if r.MaxDelay < r.Delay {
			p.add(where, "reschedule max_delay (%s) must not be less than delay (%s) with delay_function %q",
				r.MaxDelay, r.Delay, r.DelayFunction)
		}
	default:
		p.add(where, "reschedule delay_function must be one of %s, %s, %s, got %q",
			RescheduleDelayConstant, RescheduleDelayExponential, RescheduleDelayFibonacci, r.DelayFunction)
	}
	if !r.Unlimited && r.Attempts > 0 && r.Interval <= 0 {
		p.add(where, "reschedule interval must be greater than zero when attempts is %d and unlimited is false, got %s",
			r.Attempts, r.Interval)
	}
}

// MinMemoryMB is the least memory a task may ask for.
const MinMemoryMB = 10

// validate checks a resources block; nil is fine.
func (r *Resources) validate(p *problems, where string) {
	if r == nil {
		return
	}
	switch {
	case r.CPU < 0:
		p.add(where, "resources cpu must not be negative, got %d", r.CPU)
	case r.CPU == 0 && r.Cores == 0:
		p.add(where, "resources cpu must be at least 1 MHz unless cores are set")
	}
	if r.Cores < 0 {
		p.add(where, "resources cores must not be negative, got %d", r.Cores)
	}
	if r.MemoryMB < MinMemoryMB {
		p.add(where, "resources memory must be at least %d MB, got %d", MinMemoryMB, r.MemoryMB)
	}
	switch {
	case r.MemoryMaxMB < 0:
		p.add(where, "resources memory_max must not be negative, got %d", r.MemoryMaxMB)
	case r.MemoryMaxMB > 0 && r.MemoryMaxMB < r.MemoryMB:
		p.add(where, "resources memory_max (%d MB) must not be less than memory (%d MB)", r.MemoryMaxMB, r.MemoryMB)
	}
	if r.DiskMB < 0 {
		p.add(where, "resources disk must not be negative, got %d", r.DiskMB)
	}
}

// validate checks a logs block; nil is fine.
func (l *LogConfig) validate(p *problems, where string) {
	if l == nil {
		return
	}
	if l.MaxFiles < 1 {
		p.add(where, "logs max_files must be at least 1, got %d", l.MaxFiles)
	}
	if l.MaxFileSizeMB < 1 {
		p.add(where, "logs max_file_size must be at least 1 MB, got %d", l.MaxFileSizeMB)
	}
}

// validate checks a lifecycle block; nil (a main task) is fine. A sidecar
// keeps running beside the main tasks, which a poststop task cannot do.
func (l *TaskLifecycle) validate(p *problems, where string) {
	if l == nil {
		return
	}
	switch l.Hook {
	case TaskLifecycleHookPrestart, TaskLifecycleHookPoststart:
	case TaskLifecycleHookPoststop:
		if l.Sidecar {
			p.add(where, "lifecycle sidecar is not allowed with hook %q", l.Hook)
		}
	default:
		p.add(where, "lifecycle hook must be one of %s, %s, %s, got %q",
			TaskLifecycleHookPrestart, TaskLifecycleHookPoststart, TaskLifecycleHookPoststop, l.Hook)
	}
}
