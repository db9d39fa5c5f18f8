package servicecheck

import (
	"time"

	"github.com/drover-io/drover/structs"
)

// restartCounter applies a check's check_restart: limit unhealthy
// results in a row, none of them within grace of the run's start, ask for
// a restart; a healthy result starts the count again.
type restartCounter struct {
	policy     structs.CheckRestart
	graceUntil time.Time
	unhealthy  int
	exhausted  bool
}

func newRestartCounter(policy *structs.CheckRestart, started time.Time) *restartCounter {
	if policy == nil || policy.Limit <= 0 {
		return nil
	}
	return &restartCounter{policy: *policy, graceUntil: started.Add(policy.Grace)}
}

// observe takes the check's health after a result at now and reports
// whether the task is to be restarted. It says so once: the run that
// follows has counters of its own.
func (c *restartCounter) observe(h Health, now time.Time) bool {
	if c == nil || c.exhausted {
		return false
	}
	unhealthy := h == Critical || h == Warning && !c.policy.IgnoreWarnings
	if !unhealthy {
		c.unhealthy = 0
		return false
	}
	if now.Before(c.graceUntil) {
		return false
	}
	c.unhealthy++
	if c.unhealthy < c.policy.Limit {
		return false
	}
	c.exhausted = true
	return true
}
