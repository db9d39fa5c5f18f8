package structs

import (
	"fmt"
	"slices"
	"strings"
)

// maxOnFailureRules and maxOnFailureValues bound an on_failure block, so
// that judging an allocation stays cheap however the job is written.
const (
	maxOnFailureRules  = 32
	maxOnFailureValues = 64
)

// validateOnFailures checks each group's on_failure block.
func (j *Job) validateOnFailures(p *problems) {
	for i, tg := range j.TaskGroups {
		if tg != nil {
			j.validateOnFailure(p, groupWhere(i, tg), tg)
		}
	}
}

// validateOnFailure checks the group's on_failure rules: each matches on
// something, with known values, and acts with a known action; requeue
// needs a budget of the job's own to take the time left from.
func (j *Job) validateOnFailure(p *problems, where string, tg *TaskGroup) {
	if len(tg.OnFailure) == 0 {
		return
	}
	if j.Type != JobTypeBatch {
		p.add(where, "Job type %q does not allow on_failure: only batch jobs reschedule work that ends", j.Type)
		return
	}
	if len(tg.OnFailure) > maxOnFailureRules {
		p.add(where, "on_failure has %d rules, at most %d are allowed", len(tg.OnFailure), maxOnFailureRules)
		return
	}
	for i, r := range tg.OnFailure {
		ruleWhere := fmt.Sprintf("%s on_failure rule #%d", where, i+1)
		if r == nil {
			p.add(ruleWhere, "rule is empty")
			continue
		}
		j.validateOnFailureRule(p, ruleWhere, r)
	}
}

func (j *Job) validateOnFailureRule(p *problems, where string, r *OnFailureRule) {
	if len(r.ExitCodes) == 0 && len(r.Signals) == 0 && len(r.Reasons) == 0 {
		p.add(where, "rule matches nothing: give exit_codes, signals or reasons")
	}
	if n := len(r.ExitCodes) + len(r.Signals) + len(r.Reasons); n > maxOnFailureValues {
		p.add(where, "rule has %d values to match, at most %d are allowed", n, maxOnFailureValues)
		return
	}
	for _, c := range r.ExitCodes {
		if c <= 0 || c > 255 {
			p.add(where, "exit code %d is not a failure's: give 1 to 255", c)
		}
	}
	for _, s := range r.Signals {
		if !slices.Contains(SignalNames, signalKey(s)) {
			p.add(where, "signal %q is not a known signal", s)
		}
	}
	for _, reason := range r.Reasons {
		if !slices.Contains(FailureReasons, reason) {
			p.add(where, "reason %q is unknown: give one of %s", reason, strings.Join(FailureReasons, ", "))
		}
	}
	switch r.Action {
	case "":
		p.add(where, "rule needs an action: one of %s", strings.Join(OnFailureActions, ", "))
	case OnFailureRequeue:
		if j.MaxRunDuration == nil && j.Deadline == nil {
			p.add(where, "action requeue places the work again with the time left of the job's budget, but the job has none: set max_run_duration or deadline on the job")
		}
	default:
		if !slices.Contains(OnFailureActions, r.Action) {
			p.add(where, "action %q is unknown: give one of %s", r.Action, strings.Join(OnFailureActions, ", "))
		}
	}
}
