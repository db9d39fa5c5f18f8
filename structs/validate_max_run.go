package structs

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// The checks of Drover's additions around max_run_duration, kept together
// so that the rules read as one: the group's max_run_outcome, a task's own
// max_run_duration and its max_run_warning.

// SignalNames are the signals a task may be sent, by name without the
// "SIG" prefix; the drivers know each of them (drivers.Signal, whose test
// holds the two lists together).
var SignalNames = []string{
	"ABRT", "ALRM", "BUS", "CHLD", "CONT", "FPE", "HUP", "ILL", "INT", "IO",
	"IOT", "KILL", "PIPE", "PROF", "QUIT", "SEGV", "STOP", "SYS", "TERM",
	"TRAP", "TSTP", "TTIN", "TTOU", "URG", "USR1", "USR2", "VTALRM", "WINCH",
	"XCPU", "XFSZ",
}

// untrappable are the signals a process cannot catch: no use as a warning.
var untrappable = []string{"KILL", "STOP"}

// signalKey is a signal name as SignalNames writes it: upper case, without
// "SIG"; the drivers accept the same spellings.
func signalKey(name string) string {
	return strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(name)), "SIG")
}

// validateMaxRunExtensions checks the group's tasks' own limits. A task
// limit is allowed where the group's is (batch and sysbatch jobs).
func (tg *TaskGroup) validateMaxRunExtensions(p *problems, where, jobType string) {
	switch tg.MaxRunOutcome {
	case "", MaxRunOutcomeComplete, MaxRunOutcomeFailed:
		if tg.MaxRunOutcome != "" && !AllowsMaxRunDuration(jobType) {
			p.add(where, "Job type %q does not allow max_run_outcome", jobType)
		}
	default:
		p.add(where, "max_run_outcome must be %q or %q, got %q", MaxRunOutcomeComplete, MaxRunOutcomeFailed, tg.MaxRunOutcome)
	}
	for i, t := range tg.Tasks {
		if t == nil || t.MaxRunDuration == nil {
			continue
		}
		taskWhere := taskWhere(where, i, t)
		if *t.MaxRunDuration <= 0 {
			p.add(taskWhere, "max_run_duration must be greater than zero, got %s", *t.MaxRunDuration)
		}
		if !AllowsMaxRunDuration(jobType) {
			p.add(taskWhere, "Job type %q does not allow max_run_duration", jobType)
		}
	}
	for i, t := range tg.Tasks {
		if t != nil && t.MaxRunWarning != nil {
			tg.validateMaxRunWarning(p, taskWhere(where, i, t), jobType, t)
		}
	}
}

// validateMaxRunWarning checks a task's max_run_warning: a signal the task
// can trap, and a lead time within the shortest limit that applies to it.
func (tg *TaskGroup) validateMaxRunWarning(p *problems, where, jobType string, t *Task) {
	w := t.MaxRunWarning
	switch key := signalKey(w.Signal); {
	case w.Signal == "":
		p.add(where, "max_run_warning needs a signal")
	case !slices.Contains(SignalNames, key):
		p.add(where, "max_run_warning signal %q is not a known signal", w.Signal)
	case slices.Contains(untrappable, key):
		p.add(where, "max_run_warning signal %q cannot be trapped by the task", w.Signal)
	}
	if w.Before <= 0 {
		p.add(where, "max_run_warning before must be greater than zero, got %s", w.Before)
	}
	if !AllowsMaxRunDuration(jobType) {
		p.add(where, "Job type %q does not allow max_run_warning", jobType)
		return
	}
	limit, ok := shortestLimit(tg.MaxRunDuration, t.MaxRunDuration)
	switch {
	case !ok:
		p.add(where, "max_run_warning needs a max_run_duration on the task or its group")
	case w.Before > 0 && w.Before >= limit:
		p.add(where, "max_run_warning before %s must be shorter than the max_run_duration it warns of, %s", w.Before, limit)
	}
}

// shortestLimit is the shortest of the limits that are set and positive.
func shortestLimit(limits ...*time.Duration) (time.Duration, bool) {
	var shortest time.Duration
	found := false
	for _, l := range limits {
		if l != nil && *l > 0 && (!found || *l < shortest) {
			shortest, found = *l, true
		}
	}
	return shortest, found
}

// Warnings lists what is valid in the job but likely not what its author
// meant; the job runs as written. It assumes a job that passed Validate.
func (j *Job) Warnings() []string {
	if j == nil {
		return nil
	}
	var out []string
	for i, tg := range j.TaskGroups {
		if tg == nil || tg.MaxRunDuration == nil {
			continue
		}
		group := *tg.MaxRunDuration
		for k, t := range tg.Tasks {
			if t == nil || t.MaxRunDuration == nil || *t.MaxRunDuration <= group {
				continue
			}
			out = append(out, fmt.Sprintf("%s: max_run_duration %s is longer than the group's %s, whose deadline comes first",
				taskWhere(groupWhere(i, tg), k, t), *t.MaxRunDuration, group))
		}
	}
	return append(out, j.updateWarnings()...)
}
