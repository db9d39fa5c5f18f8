package nomad

import (
	"context"
	"fmt"
	"github.com/drover-io/drover/nomad/deploymentwatcher"
	"sync"
	"time"

	"github.com/drover-io/drover/nomad/broker"
	"github.com/drover-io/drover/nomad/drainer"
	"github.com/drover-io/drover/nomad/gc"
	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/structs"
)

// leaderBarrierRetry is the pause between attempts to catch up with the
// log on gaining leadership.
const leaderBarrierRetry = 500 * time.Millisecond

// monitorLeadership runs the leader's loops while this server leads, and
// stops them when it no longer does, until ctx ends.
func (s *Server) monitorLeadership(ctx context.Context) {
	var (
		stop context.CancelFunc
		done chan struct{}
	)
	stopLeading := func() {
		if stop != nil {
			stop()
			<-done
			stop, done = nil, nil
		}
	}
	startLeading := func(established chan<- struct{}) {
		lctx, cancel := context.WithCancel(ctx)
		stop, done = cancel, make(chan struct{})
		go func(done chan struct{}) {
			defer close(done)
			s.leaderLoop(lctx, established)
		}(done)
	}
	defer stopLeading()
	for {
		select {
		case <-ctx.Done():
			return
		case leader := <-s.raft.LeaderCh():
			switch {
			case leader && stop == nil:
				startLeading(nil)
			case !leader:
				stopLeading()
			}
		case restarted := <-s.leaderRestart:
			if stop != nil {
				stopLeading()
				if s.IsLeader() {
					startLeading(restarted) // closed once established
					continue
				}
			}
			close(restarted)
		}
	}
}

// restartLeadership stops the leader's loops and, if this server still
// leads, starts them again, as after an election: every component drops
// what it held and is handed the current state. It returns once the new
// loops run (or ended before that), or when ctx ends.
func (s *Server) restartLeadership(ctx context.Context) {
	restarted := make(chan struct{})
	select {
	case s.leaderRestart <- restarted:
	case <-ctx.Done():
		return
	case <-s.shutdownCtx.Done():
		return
	}
	select {
	case <-restarted:
	case <-ctx.Done():
	case <-s.shutdownCtx.Done():
	}
}

// leaderLoop establishes leadership, runs the leader's loops until ctx
// ends, and then tears them down. It closes established, if not nil, once
// the loops run, or when it returns before that.
func (s *Server) leaderLoop(ctx context.Context, established chan<- struct{}) {
	announce := func() {
		if established != nil {
			close(established)
			established = nil
		}
	}
	defer announce()
	s.logger.Info("gained leadership; starting leader loops")
	var wg sync.WaitGroup
	defer func() {
		s.disableLeaderComponents()
		wg.Wait()
		s.heartbeats.Wait()
		s.logger.Info("leader loops stopped")
	}()
	if err := s.catchUp(ctx); err != nil {
		return
	}
	s.enableLeaderComponents(ctx)
	if err := s.restoreLeaderState(ctx); err != nil {
		s.logger.Error("restore leader state", "error", err)
	}
	start := func(name string, fn func(context.Context)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(ctx)
			s.logger.Trace("leader loop ended", "loop", name)
		}()
	}
	start("plan applier", s.runPlanApplier)
	start("blocked evals", s.blockedEvals.Run)
	reaper := &broker.Reaper{
		Evals:         s.evalBroker,
		Blocked:       s.blockedEvals,
		Update:        s.updateEvals,
		DeliveryLimit: s.config.EvalDeliveryLimit,
		FollowupDelay: s.config.EvalFailedFollowupDelay,
		Logger:        s.logger,
	}
	start("failed evals", reaper.ReapFailed)
	start("cancelable evals", reaper.ReapCancelable)
	start("periodic dispatcher", s.periodic.Run)
	start("job status", s.jobStatus.Run)
	start("drainer", drainer.New(drainCluster{s}, s.logger).Run)
	start("deployment watcher", deploymentwatcher.New(deploymentCluster{s}, s.logger).Run)
	start("stats", s.emitLeaderStats)
	start("keyring", s.initializeKeyring)
	start("variable locks", s.runVariableLocks)
	if !s.config.DisableGC {
		collector := &gc.Collector{Interval: s.config.GCInterval, Collect: s.collectGarbage, Logger: s.logger.Named("gc")}
		start("garbage collection", collector.Run)
	}
	for i := range *s.config.NumSchedulers {
		w := &worker{srv: s, logger: s.logger.Named("worker").With("worker", i)}
		start("worker", w.run)
	}
	announce()
	<-ctx.Done()
	s.logger.Info("lost leadership; stopping leader loops")
}

// catchUp waits until the state holds every entry committed before this
// term, retrying until it does or ctx ends.
func (s *Server) catchUp(ctx context.Context) error {
	for {
		err := s.raft.Barrier(s.config.RaftApplyTimeout).Error()
		if err == nil {
			return nil
		}
		s.logger.Warn("catch up with the raft log on gaining leadership", "error", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(leaderBarrierRetry):
		}
	}
}

func (s *Server) enableLeaderComponents(ctx context.Context) {
	s.planQueue.SetEnabled(true)
	s.evalBroker.SetEnabled(true)
	s.blockedEvals.SetEnabled(true)
	s.heartbeats.Enable(ctx)
	s.periodic.SetEnabled(true)
	s.jobStatus.SetEnabled(true)
	s.pendingTimers.SetEnabled(true)
}

func (s *Server) disableLeaderComponents() {
	s.planQueue.SetEnabled(false)
	s.evalBroker.SetEnabled(false)
	s.blockedEvals.SetEnabled(false)
	s.heartbeats.Disable()
	s.periodic.SetEnabled(false)
	s.jobStatus.SetEnabled(false)
	s.pendingTimers.SetEnabled(false)
}

// restoreLeaderState hands the leader's loops what the state holds: the
// pending and blocked evaluations, the nodes to watch, the periodic jobs
// (launching each at most once for the runs it missed), and the jobs
// whose status may be stale. The components are enabled first, so that
// nothing applied meanwhile is missed; they ignore what they already hold.
func (s *Server) restoreLeaderState(ctx context.Context) error {
	st := s.State()
	evals, err := st.Evals(nil)
	if err != nil {
		return err
	}
	for _, e := range evals {
		switch e.Status {
		case structs.EvalStatusPending:
			s.evalBroker.Enqueue(e)
		case structs.EvalStatusBlocked:
			s.blockedEvals.Block(e)
			s.watchPending(e)
		}
	}
	nodes, err := st.Nodes(nil)
	if err != nil {
		return err
	}
	s.heartbeats.Initialize(nodes)
	jobs, err := st.Jobs(nil)
	if err != nil {
		return err
	}
	for _, job := range jobs {
		s.jobStatus.MarkJob(job.Namespace, job.ID)
	}
	if err := s.restorePeriodic(ctx, jobs); err != nil {
		return fmt.Errorf("restore periodic jobs: %w", err)
	}
	return nil
}

// observeApply tells the leader's components what an applied entry
// changed. It runs on every server, on the goroutine that applies the
// log; the components ignore it unless this server leads. A failed entry
// is not theirs to act on.
func (s *Server) observeApply(a Applied) {
	if a.Err != nil {
		return
	}
	index, entry := a.Index, a.Entry
	for _, e := range entry.WrittenEvals() {
		switch e.Status {
		case structs.EvalStatusPending:
			s.evalBroker.Enqueue(e)
		case structs.EvalStatusBlocked:
			s.blockedEvals.Block(e)
		case structs.EvalStatusComplete:
			if len(e.FailedTGAllocs) == 0 {
				s.blockedEvals.Untrack(e.Namespace, e.JobID, index)
			}
		}
		s.observePending(e)
		s.jobStatus.MarkJob(e.Namespace, e.JobID)
	}
	if freesCapacity(entry) {
		s.blockedEvals.Unblock(index)
	}
	switch e := entry.(type) {
	case *logentry.JobRegister:
		s.periodic.Add(e.Job)
		s.jobStatus.MarkJob(e.Job.Namespace, e.Job.ID)
	case *logentry.JobDeregister:
		s.periodic.Remove(e.Namespace, e.JobID)
		s.jobStatus.MarkJob(e.Namespace, e.JobID)
	case *logentry.AllocUpdate:
		for _, a := range e.Allocs {
			s.jobStatus.MarkJob(a.Namespace, a.JobID)
		}
	case *logentry.AllocClientUpdate:
		for _, a := range e.Allocs {
			s.jobStatus.MarkAlloc(a.ID)
		}
	case *logentry.AllocDesiredStatus:
		for _, id := range e.AllocIDs {
			s.jobStatus.MarkAlloc(id)
		}
	case *logentry.EvalDelete:
		for _, id := range e.Allocs {
			s.jobStatus.MarkAlloc(id)
		}
	}
}

// freesCapacity reports whether an entry may have made room for blocked
// evaluations: a node registered, became ready or eligible, or
// allocations stopped.
func freesCapacity(entry logentry.Entry) bool {
	switch e := entry.(type) {
	case *logentry.NodeRegister:
		return true
	case *logentry.NodeUpdateStatus:
		return e.Status == structs.NodeStatusReady
	case *logentry.NodeUpdateEligibility:
		return e.Eligibility == structs.NodeSchedulingEligible
	case *logentry.NodeUpdateDrain:
		return e.DrainStrategy == nil && e.MarkEligible
	case *logentry.AllocUpdate:
		for _, a := range e.Allocs {
			if a.TerminalStatus() {
				return true
			}
		}
	case *logentry.AllocClientUpdate:
		for _, a := range e.Allocs {
			if a.ClientTerminalStatus() {
				return true
			}
		}
	case *logentry.AllocDesiredStatus:
		return e.Desired != structs.AllocDesiredStatusRun
	case *logentry.EvalDelete:
		return len(e.Allocs) > 0
	}
	return false
}
