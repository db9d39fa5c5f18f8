package rpc

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// LeaderReach follows this server's attempts to connect to the leader.
type LeaderReach struct {
	// After is how long attempts must have kept failing.
	After time.Duration

	mu       sync.Mutex
	leader   string    // the leader the record is about
	first    time.Time // first failed attempt since the last success
	last     time.Time // latest failed attempt
	failures int
	lastErr  error
}

// Record notes the outcome of a call to leader: a DialError is a failure
// to connect; anything else, an answer or a broken call included, shows
// that a connection could be made. Callers leave out attempts their own
// context ended, which say nothing about the leader.
func (r *LeaderReach) Record(leader string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if leader != r.leader {
		r.leader, r.failures, r.lastErr = leader, 0, nil
	}
	var de *DialError
	if !errors.As(err, &de) {
		r.failures, r.lastErr = 0, nil
		return
	}
	now := time.Now()
	if r.failures == 0 {
		r.first = now
	}
	r.failures++
	r.last, r.lastErr = now, err
}

// Trouble returns why this server cannot reach leader, nil when it can or
// when its attempts have not failed for long enough to tell: at least two,
// r.after apart, with no success since.
func (r *LeaderReach) Trouble(leader string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if leader == "" || leader != r.leader || r.failures < 2 || r.last.Sub(r.first) < r.After {
		return nil
	}
	return &unreachableError{leader: leader, since: r.first, failures: r.failures, last: r.lastErr}
}

// Failing reports whether the latest attempt to connect to leader failed.
func (r *LeaderReach) Failing(leader string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return leader != "" && leader == r.leader && r.failures > 0
}

// unreachableError says that, and why, the leader cannot be reached.
type unreachableError struct {
	leader   string
	since    time.Time
	failures int
	last     error
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("cannot open a connection to the leader at %s, which raft still follows: %d attempts failed over %s (since %s); last: %v",
		e.leader, e.failures, time.Since(e.since).Round(time.Second), e.since.UTC().Format(time.RFC3339), e.last)
}

func (e *unreachableError) Unwrap() error { return ErrLeaderUnreachable }
