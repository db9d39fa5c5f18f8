package structs

import (
	"strings"
	"testing"
	"time"
)

// TestOnFailureDecide runs every action against every way an allocation
// ends, with rules that match on each criterion alone and together.
func TestOnFailureDecide(t *testing.T) {
	exit3 := FailureOutcome{ExitCodes: []int{3}}
	killed := FailureOutcome{ExitCodes: []int{137}, Signals: []string{"KILL"}}
	timeout := FailureOutcome{Signals: []string{"INT"}, Reasons: []string{FailureReasonTimeout}}
	oom := FailureOutcome{Signals: []string{"KILL"}, Reasons: []string{FailureReasonOOM}}
	driver := FailureOutcome{Reasons: []string{FailureReasonDriverFailure}}
	outcomes := map[string]FailureOutcome{"exit3": exit3, "killed": killed, "timeout": timeout, "oom": oom, "driver": driver, "none": {}}

	for _, action := range OnFailureActions {
		rules := []*OnFailureRule{
			{ExitCodes: []int{3, 4}, Action: action},
			{Signals: []string{"SIGKILL"}, Reasons: []string{FailureReasonOOM}, Action: action},
			{Reasons: []string{FailureReasonTimeout}, Action: action},
			{Signals: []string{"kill"}, Action: action},
			{Reasons: []string{FailureReasonDriverFailure}, Action: action},
		}
		want := map[string]struct {
			rule int
			why  string
		}{
			"exit3":   {0, "exit code 3"},
			"killed":  {3, "signal SIGKILL"},
			"timeout": {2, "timeout"},
			"oom":     {1, "signal SIGKILL, oom"},
			"driver":  {4, "driver_failure"},
			"none":    {-1, ""},
		}
		for name, o := range outcomes {
			got := OnFailureDecide(o, rules)
			w := want[name]
			if w.rule < 0 {
				if got != (OnFailureDecision{}) {
					t.Errorf("%s/%s: got %+v, want no decision", action, name, got)
				}
				continue
			}
			if got.Action != action || got.Rule != w.rule || got.Why != w.why {
				t.Errorf("%s/%s: got %+v, want rule %d %q", action, name, got, w.rule, w.why)
			}
		}
	}
}

func TestOnFailureDecideFirstMatchWins(t *testing.T) {
	rules := []*OnFailureRule{
		nil,
		{ExitCodes: []int{3}, Reasons: []string{FailureReasonTimeout}, Action: OnFailureFailJob}, // both needed
		{ExitCodes: []int{3}, Action: OnFailureIgnore},
		{ExitCodes: []int{3}, Action: OnFailureRetry},
		{}, // matches nothing
	}
	if got := OnFailureDecide(FailureOutcome{ExitCodes: []int{3}}, rules); got.Action != OnFailureIgnore || got.Rule != 2 {
		t.Errorf("got %+v, want rule 2 ignore", got)
	}
	o := FailureOutcome{ExitCodes: []int{3}, Reasons: []string{FailureReasonTimeout}}
	if got := OnFailureDecide(o, rules); got.Action != OnFailureFailJob || got.Why != "exit code 3, timeout" {
		t.Errorf("got %+v, want rule 1 fail_job", got)
	}
	if got := OnFailureDecide(FailureOutcome{ExitCodes: []int{5}}, rules); got.Action != "" {
		t.Errorf("got %+v, want no match", got)
	}
	if got := OnFailureDecide(FailureOutcome{}, nil); got.Action != "" {
		t.Errorf("no rules: got %+v", got)
	}
}

func policyAlloc(status, desc string, states map[string]*TaskState) *Allocation {
	d := time.Minute
	job := &Job{ID: "j", Type: JobTypeBatch, TaskGroups: []*TaskGroup{{
		Name: "g", MaxRunDuration: &d,
		OnFailure: []*OnFailureRule{{Reasons: []string{FailureReasonTimeout}, Action: OnFailureRequeue}, {ExitCodes: []int{3}, Action: OnFailureFailJob}},
	}}}
	return &Allocation{ID: "a", Job: job, TaskGroup: "g", ClientStatus: status, ClientDescription: desc, TaskStates: states}
}

func TestAllocationFailureOutcome(t *testing.T) {
	exited := func(code, sig int, oom bool) map[string]*TaskState {
		ev := &TaskEvent{Type: TaskTerminated, ExitCode: code, Signal: sig, Details: map[string]string{"oom_killed": "false"}}
		if oom {
			ev.Details["oom_killed"] = "true"
		}
		return map[string]*TaskState{"t": {State: TaskStateDead, Failed: code != 0, Events: []*TaskEvent{{Type: TaskStarted}, ev}}}
	}
	cases := []struct {
		name   string
		alloc  *Allocation
		ok     bool
		action string
		want   FailureOutcome
	}{
		{"running", policyAlloc(AllocClientStatusRunning, "", nil), false, "", FailureOutcome{}},
		{"complete", policyAlloc(AllocClientStatusComplete, "", exited(0, 0, false)), false, "", FailureOutcome{}},
		{"exit 3", policyAlloc(AllocClientStatusFailed, "", exited(3, 0, false)), true, OnFailureFailJob, FailureOutcome{ExitCodes: []int{3}}},
		{"exit 4", policyAlloc(AllocClientStatusFailed, "", exited(4, 0, false)), true, "", FailureOutcome{ExitCodes: []int{4}}},
		{"oom", policyAlloc(AllocClientStatusFailed, "", exited(137, 9, true)), true, "", FailureOutcome{ExitCodes: []int{137}, Signals: []string{"KILL"}, Reasons: []string{FailureReasonOOM}}},
		{"timeout complete", policyAlloc(AllocClientStatusComplete, AllocTimeoutReasonMaxRunDuration, exited(0, 2, false)), true, OnFailureRequeue,
			FailureOutcome{Signals: []string{"INT"}, Reasons: []string{FailureReasonTimeout}}},
		{"timeout while failing", policyAlloc(AllocClientStatusFailed, AllocTimeoutWhileFailing("t", "Exit Code: 3"), exited(3, 0, false)), true, OnFailureRequeue,
			FailureOutcome{ExitCodes: []int{3}, Reasons: []string{FailureReasonTimeout}}},
		{"driver", policyAlloc(AllocClientStatusFailed, "", map[string]*TaskState{"t": {Events: []*TaskEvent{{Type: TaskDriverFailure, DriverError: "no binary"}}}}), true, "",
			FailureOutcome{Reasons: []string{FailureReasonDriverFailure}}},
	}
	for _, c := range cases {
		got, ok := c.alloc.FailureOutcome()
		if ok != c.ok || !equalOutcome(got, c.want) {
			t.Errorf("%s: got %+v %v, want %+v %v", c.name, got, ok, c.want, c.ok)
		}
		if d := c.alloc.OnFailureDecision(); d.Action != c.action {
			t.Errorf("%s: decision %+v, want %q", c.name, d, c.action)
		}
	}
}

func equalOutcome(a, b FailureOutcome) bool {
	return strings.Join(a.Signals, ",") == strings.Join(b.Signals, ",") &&
		strings.Join(a.Reasons, ",") == strings.Join(b.Reasons, ",") &&
		len(a.ExitCodes) == len(b.ExitCodes) && (len(a.ExitCodes) == 0 || a.ExitCodes[0] == b.ExitCodes[0])
}

func TestValidateOnFailure(t *testing.T) {
	budget := time.Hour
	base := func(rules ...*OnFailureRule) *Job {
		j := validJob(JobTypeBatch)
		j.TaskGroups[0].OnFailure = rules
		return j
	}
	cases := []struct {
		name string
		job  *Job
		want string
	}{
		{"unknown action", base(&OnFailureRule{ExitCodes: []int{1}, Action: "explode"}), `action "explode" is unknown`},
		{"no action", base(&OnFailureRule{ExitCodes: []int{1}}), "rule needs an action"},
		{"empty match", base(&OnFailureRule{Action: OnFailureRetry}), "rule matches nothing"},
		{"exit 0", base(&OnFailureRule{ExitCodes: []int{0}, Action: OnFailureRetry}), "exit code 0 is not a failure's"},
		{"bad signal", base(&OnFailureRule{Signals: []string{"SIGNOPE"}, Action: OnFailureRetry}), `signal "SIGNOPE" is not a known signal`},
		{"bad reason", base(&OnFailureRule{Reasons: []string{"bored"}, Action: OnFailureRetry}), `reason "bored" is unknown`},
		{"requeue without budget", base(&OnFailureRule{Reasons: []string{"timeout"}, Action: OnFailureRequeue}), "requeue places the work again with the time left of the job's budget, but the job has none"},
	}
	for _, c := range cases {
		err := c.job.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `on_failure rule #1`) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	ok := base(&OnFailureRule{Reasons: []string{"timeout"}, Action: OnFailureRequeue}, &OnFailureRule{Signals: []string{"SIGKILL"}, ExitCodes: []int{137}, Action: OnFailureFailJob})
	ok.MaxRunDuration = &budget
	if err := ok.Validate(); err != nil {
		t.Errorf("valid job refused: %v", err)
	}
	svc := base(&OnFailureRule{ExitCodes: []int{1}, Action: OnFailureRetry})
	svc.Type = JobTypeService
	if err := svc.Validate(); err == nil || !strings.Contains(err.Error(), `Job type "service" does not allow on_failure`) {
		t.Errorf("service: got %v", err)
	}
}
