package structs

import "time"

// What a periodic launch does while an earlier child of the job still
// runs (PeriodicConfig.Overlap). Drover's: Nomad has only
// prohibit_overlap, which is "skip".
const (
	// PeriodicOverlapAllow launches the new child beside the running one.
	PeriodicOverlapAllow = "allow"
	// PeriodicOverlapSkip skips the launch (prohibit_overlap = true).
	PeriodicOverlapSkip = "skip"
	// PeriodicOverlapReplace stops the running children and launches the
	// new one, as Kubernetes' concurrencyPolicy: Replace.
	PeriodicOverlapReplace = "replace"
)

// MaxKeepLast bounds a periodic job's keep_last: the children it keeps
// stay in the servers' memory.
const MaxKeepLast = 1000

// OverlapPolicy returns what a launch of the job does while an earlier
// child runs: Overlap when set, else skip if ProhibitOverlap, else allow.
func (p *PeriodicConfig) OverlapPolicy() string {
	switch {
	case p == nil:
		return PeriodicOverlapAllow
	case p.Overlap != "":
		return p.Overlap
	case p.ProhibitOverlap:
		return PeriodicOverlapSkip
	}
	return PeriodicOverlapAllow
}

// validateGC checks the job's garbage collection and overlap settings.
func (j *Job) validateGC(probs *problems) {
	if j.TTLAfterFinished < 0 {
		probs.add("Job", "ttl_after_finished must not be negative, not %s", j.TTLAfterFinished)
	}
	p := j.Periodic
	if p == nil {
		return
	}
	const where = "Job periodic"
	switch p.Overlap {
	case "", PeriodicOverlapAllow, PeriodicOverlapSkip, PeriodicOverlapReplace:
	default:
		probs.add(where, "overlap must be %q, %q or %q, not %q",
			PeriodicOverlapSkip, PeriodicOverlapAllow, PeriodicOverlapReplace, p.Overlap)
	}
	if p.ProhibitOverlap && p.Overlap != "" && p.Overlap != PeriodicOverlapSkip {
		probs.add(where, "prohibit_overlap = true means overlap = %q; it conflicts with overlap = %q", PeriodicOverlapSkip, p.Overlap)
	}
	if p.KeepLast < 0 || p.KeepLast > MaxKeepLast {
		probs.add(where, "keep_last must be between 0 and %d, not %d", MaxKeepLast, p.KeepLast)
	}
}

// TTLExpired reports whether the job sets ttl_after_finished and, given
// when the job finished, whether that much time has passed by now. A job
// without one leaves the decision to the server's job_gc_threshold.
func (j *Job) TTLExpired(finished, now time.Time) (set, expired bool) {
	if j.TTLAfterFinished <= 0 {
		return false, false
	}
	return true, !now.Before(finished.Add(j.TTLAfterFinished))
}
