package structs

import (
	"fmt"
	"time"
)

// MaxRunExtensionLimit is the group's max_run_extension (its own, or the
// job's that canonicalisation copied in), zero when it has none.
func (tg *TaskGroup) MaxRunExtensionLimit() time.Duration {
	if tg == nil || tg.MaxRunExtension == nil || *tg.MaxRunExtension <= 0 {
		return 0
	}
	return *tg.MaxRunExtension
}

// CheckSelfMaxRun says whether a task of the allocation may, with its own
// workload identity, give the allocation budget as its max_run_duration:
// the group must have a max_run_duration to move and a
// max_run_extension, and budget may be at most the group's
// max_run_duration plus that extension. The extension is counted from
// the configured budget, not from the allocation's current one, so that
// it bounds the total however many times a task asks. A shorter budget is
// always allowed: a task may end itself sooner.
func (a *Allocation) CheckSelfMaxRun(budget time.Duration) error {
	tg := a.LookupTaskGroup()
	if tg == nil {
		return fmt.Errorf("allocation %s has no group %q in its job", a.ID, a.TaskGroup)
	}
	configured := tg.MaxRunBudget()
	if configured <= 0 {
		return fmt.Errorf("group %q has no max_run_duration for a task to extend", tg.Name)
	}
	if budget <= configured {
		return nil
	}
	limit := tg.MaxRunExtensionLimit()
	if limit <= 0 {
		return fmt.Errorf("group %q sets no max_run_extension, so its tasks may not extend max_run_duration %s (asked %s)",
			tg.Name, configured, budget)
	}
	if budget-configured > limit {
		return fmt.Errorf("max_run_duration %s is %s beyond the group's max_run_duration %s, past its max_run_extension %s (at most %s)",
			budget, budget-configured, configured, limit, configured+limit)
	}
	return nil
}
