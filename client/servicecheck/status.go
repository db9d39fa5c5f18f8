package servicecheck

// Health is what a check says of its service.
type Health string

// The healths of a check, as Consul and Nomad's jobspec name them.
const (
	Passing  Health = "passing"
	Warning  Health = "warning"
	Critical Health = "critical"
	// Pending is a check's health before its first result, when it has
	// no initial_status.
	Pending Health = ""
)

// apiStatus is how Nomad's checks API names a health.
func (h Health) apiStatus() string {
	switch h {
	case Passing:
		return "success"
	case Warning:
		return "warning"
	case Critical:
		return "failure"
	default:
		return "pending"
	}
}

// thresholds are how many results in a row move a check's health.
type thresholds struct {
	successBeforePassing   int
	failuresBeforeWarning  int
	failuresBeforeCritical int
}

// tracker holds a check's health and the runs of results that move it.
type tracker struct {
	thresholds
	health    Health
	successes int
	failures  int
}

// observe takes one result and returns the check's health after it. A
// passing result makes the check passing once successBeforePassing of
// them came in a row; a critical one makes it warning, then critical,
// once their failures_before counts came in a row; a warning result (a
// script's exit code 1, an http 429) makes it warning at once.
func (t *tracker) observe(r Health) Health {
	switch r {
	case Passing:
		t.failures = 0
		t.successes++
		if t.successes >= max(1, t.successBeforePassing) {
			t.health = Passing
		}
	case Warning:
		t.successes, t.failures = 0, 0
		t.health = Warning
	default:
		t.successes = 0
		t.failures++
		switch {
		case t.failures >= max(1, t.failuresBeforeCritical):
			t.health = Critical
		case t.failuresBeforeWarning > 0 && t.failures >= t.failuresBeforeWarning:
			t.health = Warning
		}
	}
	return t.health
}
