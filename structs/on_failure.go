package structs

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A group's on_failure block is Drover's: what a failed or timed-out
// allocation leads to, decided by the first rule whose match fits the way
// the allocation ended (its tasks' exit codes and signals, and reasons:
// a max_run_duration, the OOM killer, a driver failure). Without a
// matching rule the allocation is handled as before: a failed one by the
// reschedule policy, a timed-out one by its max_run_outcome. The
// scheduler takes the decision, from the stored allocation alone, through
// OnFailureDecide: every evaluation reaches the same one.

// The actions of an on_failure rule.
const (
	// OnFailureRetry reschedules the allocation as the group's reschedule
	// policy says, even one a deadline ended complete.
	OnFailureRetry = "retry"
	// OnFailureFailJob stops the whole job: its other allocations are
	// stopped and nothing more is placed for its version.
	OnFailureFailJob = "fail_job"
	// OnFailureIgnore counts the allocation done: it keeps its slot and
	// is not rescheduled.
	OnFailureIgnore = "ignore"
	// OnFailureComplete is ignore, and the job is done: nothing more is
	// placed for its version, what still runs finishes, and the job then
	// ends dead.
	OnFailureComplete = "complete"
	// OnFailureRequeue places the work again at once, whatever the
	// reschedule policy's attempts, with only the time left of the job's
	// own budget (max_run_duration on the job, or its deadline), which a
	// replacement inherits.
	OnFailureRequeue = "requeue"
)

// OnFailureActions lists the actions, in the order the docs give them.
var OnFailureActions = []string{OnFailureRetry, OnFailureFailJob, OnFailureIgnore, OnFailureComplete, OnFailureRequeue}

// The reasons an on_failure rule may match.
const (
	// FailureReasonTimeout: a max_run_duration (the allocation's, a
	// task's, the job's or its deadline) stopped the allocation.
	FailureReasonTimeout = "timeout"
	// FailureReasonOOM: the OOM killer ended a task.
	FailureReasonOOM = "oom"
	// FailureReasonDriverFailure: a driver could not start a task.
	FailureReasonDriverFailure = "driver_failure"
)

// FailureReasons lists the reasons a rule may match.
var FailureReasons = []string{FailureReasonTimeout, FailureReasonOOM, FailureReasonDriverFailure}

// OnFailureRule is one rule of a group's on_failure block. A rule matches
// when every criterion it sets matches (any of a criterion's values is
// enough); it must set at least one.
type OnFailureRule struct {
	// ExitCodes match a task that exited with one of them (never 0).
	ExitCodes []int `json:",omitempty"`
	// Signals match a task that a signal ended, by name ("SIGKILL" or
	// "KILL").
	Signals []string `json:",omitempty"`
	// Reasons match one of FailureReasons.
	Reasons []string `json:",omitempty"`
	// Action is one of OnFailureActions.
	Action string
}

// FailureOutcome is how an allocation ended, as on_failure rules see it.
type FailureOutcome struct {
	// ExitCodes are the non-zero exit codes of the tasks' last runs.
	ExitCodes []int
	// Signals are the signals that ended the tasks' last runs, by name
	// without "SIG".
	Signals []string
	// Reasons are the FailureReasons that apply.
	Reasons []string
}

// OnFailureDecision is the action a group's on_failure rules take for
// an allocation, and which rule took it.
type OnFailureDecision struct {
	// Action is empty when no rule matched: the allocation is handled as
	// without on_failure.
	Action string
	// Rule is the index of the matching rule.
	Rule int
	// Why says what matched, for descriptions.
	Why string
}

// OnFailureDecide is the first rule of rules that matches outcome; the
// zero decision when none does. It is pure: the scheduler's every
// evaluation of one allocation decides the same.
func OnFailureDecide(outcome FailureOutcome, rules []*OnFailureRule) OnFailureDecision {
	for i, r := range rules {
		if r == nil {
			continue
		}
		if why, ok := r.matches(outcome); ok {
			return OnFailureDecision{Action: r.Action, Rule: i, Why: why}
		}
	}
	return OnFailureDecision{}
}

// matches reports whether every criterion the rule sets matches outcome,
// and says what matched. A rule that sets none matches nothing
// (validation refuses it).
func (r *OnFailureRule) matches(o FailureOutcome) (string, bool) {
	var why []string
	if len(r.ExitCodes) == 0 && len(r.Signals) == 0 && len(r.Reasons) == 0 {
		return "", false
	}
	if len(r.ExitCodes) > 0 {
		i := slices.IndexFunc(o.ExitCodes, func(c int) bool { return slices.Contains(r.ExitCodes, c) })
		if i < 0 {
			return "", false
		}
		why = append(why, "exit code "+strconv.Itoa(o.ExitCodes[i]))
	}
	if len(r.Signals) > 0 {
		i := slices.IndexFunc(o.Signals, func(s string) bool {
			return slices.ContainsFunc(r.Signals, func(want string) bool { return signalKey(want) == s })
		})
		if i < 0 {
			return "", false
		}
		why = append(why, "signal SIG"+o.Signals[i])
	}
	if len(r.Reasons) > 0 {
		i := slices.IndexFunc(o.Reasons, func(s string) bool { return slices.Contains(r.Reasons, s) })
		if i < 0 {
			return "", false
		}
		why = append(why, o.Reasons[i])
	}
	return strings.Join(why, ", "), true
}

// FailureOutcome reads how the allocation ended from its stored state:
// each task's last termination, its driver failures, the OOM killer, and
// whether a deadline stopped it. ok is false when the allocation did not
// end in a way on_failure rules judge: it has not finished, or it
// finished complete without a deadline stopping it.
func (a *Allocation) FailureOutcome() (o FailureOutcome, ok bool) {
	timedOut := a.MaxRun().Exceeded
	for _, ts := range a.TaskStates {
		if ts != nil && ts.MaxRunExceeded {
			timedOut = true
		}
	}
	switch {
	case a.ClientStatus == AllocClientStatusFailed:
	case a.ClientStatus == AllocClientStatusComplete && timedOut:
	default:
		return FailureOutcome{}, false
	}
	if timedOut {
		o.Reasons = append(o.Reasons, FailureReasonTimeout)
	}
	names := make([]string, 0, len(a.TaskStates))
	for name := range a.TaskStates {
		names = append(names, name)
	}
	slices.Sort(names) // a stable order, for a stable Why
	oom, driver := false, false
	for _, name := range names {
		ts := a.TaskStates[name]
		if ts == nil {
			continue
		}
		var last *TaskEvent
		for _, e := range ts.Events {
			switch {
			case e == nil:
			case e.Type == TaskDriverFailure:
				driver = true
			case e.Type == TaskTerminated:
				last = e
				if e.Details["oom_killed"] == "true" {
					oom = true
				}
			}
		}
		if last == nil {
			continue
		}
		if last.ExitCode != 0 && !slices.Contains(o.ExitCodes, last.ExitCode) {
			o.ExitCodes = append(o.ExitCodes, last.ExitCode)
		}
		if last.Signal > 0 {
			if s := signalName(last.Signal); !slices.Contains(o.Signals, s) {
				o.Signals = append(o.Signals, s)
			}
		}
	}
	if oom {
		o.Reasons = append(o.Reasons, FailureReasonOOM)
	}
	if driver {
		o.Reasons = append(o.Reasons, FailureReasonDriverFailure)
	}
	return o, true
}

// signalName is a signal number as rules name it: "KILL" for 9. Clients
// run on Linux and report Linux numbers, whatever the server's platform;
// a number without a name stays a number.
func signalName(n int) string {
	if n > 0 && n < len(linuxSignalNames) && linuxSignalNames[n] != "" {
		return linuxSignalNames[n]
	}
	return strconv.Itoa(n)
}

// linuxSignalNames are the names of Linux's signal numbers (x86 and arm),
// without "SIG".
var linuxSignalNames = [...]string{
	1: "HUP", 2: "INT", 3: "QUIT", 4: "ILL", 5: "TRAP", 6: "ABRT", 7: "BUS", 8: "FPE",
	9: "KILL", 10: "USR1", 11: "SEGV", 12: "USR2", 13: "PIPE", 14: "ALRM", 15: "TERM",
	16: "STKFLT", 17: "CHLD", 18: "CONT", 19: "STOP", 20: "TSTP", 21: "TTIN", 22: "TTOU",
	23: "URG", 24: "XCPU", 25: "XFSZ", 26: "VTALRM", 27: "PROF", 28: "WINCH", 29: "IO",
	30: "PWR", 31: "SYS",
}

// OnFailureDecision is the group's on_failure decision for the
// allocation: the zero decision when its group has no rules, none
// matches, or it did not fail or time out.
func (a *Allocation) OnFailureDecision() OnFailureDecision {
	tg := a.LookupTaskGroup()
	if tg == nil || len(tg.OnFailure) == 0 {
		return OnFailureDecision{}
	}
	o, ok := a.FailureOutcome()
	if !ok {
		return OnFailureDecision{}
	}
	return OnFailureDecide(o, tg.OnFailure)
}

// OnFailureReason is the description of what an allocation's decision
// did, for the evaluation and the allocations it stops.
func OnFailureReason(alloc *Allocation, d OnFailureDecision) string {
	return fmt.Sprintf("on_failure rule %d (%s) of group %q: allocation %s ended with %s",
		d.Rule+1, d.Action, alloc.TaskGroup, shortID(alloc.ID), d.Why)
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// Copy returns a deep copy of the rule.
func (r *OnFailureRule) Copy() *OnFailureRule {
	if r == nil {
		return nil
	}
	c := *r
	c.ExitCodes = slices.Clone(r.ExitCodes)
	c.Signals = slices.Clone(r.Signals)
	c.Reasons = slices.Clone(r.Reasons)
	return &c
}

// String is the rule in one line, for diffs and plans.
func (r *OnFailureRule) String() string {
	var parts []string
	if len(r.ExitCodes) > 0 {
		parts = append(parts, fmt.Sprintf("exit_codes=%v", r.ExitCodes))
	}
	if len(r.Signals) > 0 {
		parts = append(parts, fmt.Sprintf("signals=%v", r.Signals))
	}
	if len(r.Reasons) > 0 {
		parts = append(parts, fmt.Sprintf("reasons=%v", r.Reasons))
	}
	return strings.Join(parts, " ") + " -> " + r.Action
}
