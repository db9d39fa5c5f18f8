package scheduler

import (
	"time"

	"github.com/drover-io/drover/structs"
)

const (
	// rescheduleWindow is how early a failed allocation may be rescheduled
	// before its delay has fully passed, so that an evaluation that runs a
	// moment early does not create another follow-up.
	rescheduleWindow = time.Second

	// followupBatchWindow groups failed allocations whose delays end close
	// together under one follow-up evaluation.
	followupBatchWindow = 5 * time.Second

	// unlimitedTrackerEvents is how many reschedule events an allocation
	// of an unlimited policy remembers: enough to compute the next delay.
	unlimitedTrackerEvents = 10
)

// rescheduleWhen says what to do with a failed allocation.
type rescheduleWhen int

const (
	rescheduleNever rescheduleWhen = iota
	rescheduleNow
	rescheduleLater
)

// rescheduleDecision is the outcome of a failed allocation's reschedule
// policy.
type rescheduleDecision struct {
	when  rescheduleWhen
	at    time.Time     // when the delay ends
	delay time.Duration // the delay, recorded in the next tracker event
	// requeue is an on_failure requeue: placed at once, whatever the
	// reschedule policy's attempts.
	requeue bool
	// done is an on_failure ignore or complete: the allocation counts as
	// complete and keeps its slot.
	done bool
}

// decideReschedule applies policy to a failed allocation at now. An
// allocation is rescheduled now when its delay has passed or when evalID is
// the follow-up evaluation created for it.
func decideReschedule(alloc *structs.Allocation, policy *structs.ReschedulePolicy, now time.Time, evalID string) rescheduleDecision {
	if policy == nil || (!policy.Unlimited && policy.Attempts <= 0) {
		return rescheduleDecision{when: rescheduleNever}
	}
	failed := failTime(alloc, now)
	events := trackerEvents(alloc)
	if !policy.Unlimited && attemptsWithin(events, policy.Interval, failed) >= policy.Attempts {
		return rescheduleDecision{when: rescheduleNever}
	}
	delay := nextDelay(policy, events, failed)
	d := rescheduleDecision{when: rescheduleLater, at: failed.Add(delay), delay: delay}
	if (evalID != "" && alloc.FollowupEvalID == evalID) || !d.at.After(now.Add(rescheduleWindow)) {
		d.when = rescheduleNow
	}
	return d
}

// failTime is when an allocation failed: when its last task finished, or
// else when the allocation last changed.
func failTime(alloc *structs.Allocation, now time.Time) time.Time {
	var latest time.Time
	for _, ts := range alloc.TaskStates {
		if ts != nil && ts.FinishedAt.After(latest) {
			latest = ts.FinishedAt
		}
	}
	if !latest.IsZero() {
		return latest
	}
	if alloc.ModifyTime != 0 {
		return time.Unix(0, alloc.ModifyTime)
	}
	return now
}

func trackerEvents(alloc *structs.Allocation) []*structs.RescheduleEvent {
	if alloc.RescheduleTracker == nil {
		return nil
	}
	return alloc.RescheduleTracker.Events
}

// attemptsWithin counts the reschedules in the interval before failed; a
// zero interval counts them all.
func attemptsWithin(events []*structs.RescheduleEvent, interval time.Duration, failed time.Time) int {
	if interval <= 0 {
		return len(events)
	}
	from := failed.Add(-interval).UnixNano()
	n := 0
	for _, e := range events {
		if e != nil && e.RescheduleTime >= from {
			n++
		}
	}
	return n
}

// nextDelay is the delay before the next reschedule: constant, doubling
// (exponential) or the sum of the last two (fibonacci), capped at
// MaxDelay. A sequence starts over when the allocation ran for longer than
// MaxDelay since the last reschedule: it was healthy for a while.
func nextDelay(policy *structs.ReschedulePolicy, events []*structs.RescheduleEvent, failed time.Time) time.Duration {
	base := policy.Delay
	if policy.DelayFunction == structs.RescheduleDelayConstant || policy.DelayFunction == "" || len(events) == 0 {
		return base
	}
	last := events[len(events)-1]
	if last == nil || last.Delay <= 0 {
		return base
	}
	if policy.MaxDelay > 0 && failed.Sub(time.Unix(0, last.RescheduleTime)) > policy.MaxDelay+last.Delay {
		return base
	}
	var next time.Duration
	switch policy.DelayFunction {
	case structs.RescheduleDelayExponential:
		next = last.Delay * 2
	case structs.RescheduleDelayFibonacci:
		next = last.Delay
		if len(events) >= 2 && events[len(events)-2] != nil {
			next += events[len(events)-2].Delay
		}
	default:
		return base
	}
	if policy.MaxDelay > 0 {
		next = min(next, policy.MaxDelay)
	}
	return max(next, base)
}

// nextTracker is the tracker of the allocation that replaces a failed one:
// the failed one's recent events and one for this reschedule.
func nextTracker(prev *structs.Allocation, policy *structs.ReschedulePolicy, now time.Time, delay time.Duration) *structs.RescheduleTracker {
	var kept []*structs.RescheduleEvent
	events := trackerEvents(prev)
	switch {
	case policy.Unlimited:
		if len(events) >= unlimitedTrackerEvents {
			events = events[len(events)-unlimitedTrackerEvents+1:]
		}
		kept = append(kept, events...)
	case policy.Interval > 0:
		from := now.Add(-policy.Interval).UnixNano()
		for _, e := range events {
			if e != nil && e.RescheduleTime >= from {
				kept = append(kept, e)
			}
		}
	default:
		kept = append(kept, events...)
	}
	tracker := &structs.RescheduleTracker{Events: make([]*structs.RescheduleEvent, 0, len(kept)+1)}
	for _, e := range kept {
		c := *e
		tracker.Events = append(tracker.Events, &c)
	}
	tracker.Events = append(tracker.Events, &structs.RescheduleEvent{
		RescheduleTime: now.UnixNano(),
		PrevAllocID:    prev.ID,
		PrevNodeID:     prev.NodeID,
		Delay:          delay,
	})
	return tracker
}

// previousNodes are the nodes an allocation's predecessors failed on.
func previousNodes(alloc *structs.Allocation) []string {
	nodes := []string{alloc.NodeID}
	for _, e := range trackerEvents(alloc) {
		if e != nil && e.PrevNodeID != "" {
			nodes = append(nodes, e.PrevNodeID)
		}
	}
	return nodes
}
