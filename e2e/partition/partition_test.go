package partition

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/shoenig/test/must"
)

// hold is how long each fault lasts: several of raft's election timeouts
// (1 s), so that the servers that can elect a new leader do and serve
// under the fault, and well beyond the time they take to, so that a call
// left hanging until the fault heals shows.
const hold = 8 * time.Second

// answerGrace is how long, beyond the election of a new leader, a server
// the fault leaves whole may take to answer a write: enough to learn of
// the new leader and give up on the one that is gone (or to answer that
// the write may still apply), on a loaded machine. Reads are given up
// after readTimeout, and the same hang shows in writes.
const answerGrace = 4 * time.Second

// afterHeal is how long the callers go on once the servers agree on a
// leader again after a fault, so that the history shows the healed
// cluster too.
const afterHeal = 2 * time.Second

// checkTimeout bounds the checker's work on one job's calls; the calls of
// a linearizable history take it a fraction of a second.
const checkTimeout = 20 * time.Second

// figure is what one fault's run measured.
type figure struct {
	fault   string
	calls   int
	counts  Counts
	verdict Verdict
	late    lateness
	// elected is how long after the fault began a whole server first
	// named a new leader, 0 if none did during the fault.
	elected time.Duration
	// slowest is the longest a whole server took to answer a write.
	slowest time.Duration
	// visuals are the files of porcupine's visualizations of the jobs
	// whose calls are not known to be linearizable.
	visuals []string
}

// TestPartition runs a cluster of three servers and a client, each in a
// network namespace of its own, through each fault in turn. Callers on
// every server register, stop and read jobs through the fault and after
// it heals: their history must be linearizable, and the servers the fault
// leaves whole must elect a new leader if the fault hit theirs, and answer
// each write within answerGrace of that election. An allocation
// whose max_run_duration deadline falls in the middle of the fault must be
// killed within killWithin of it.
func TestPartition(t *testing.T) {
	c := startCluster(t)
	var figures []figure
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			figures = append(figures, c.endure(t, f))
		})
	}
	report(t, figures)
}

// endure runs the cluster through f with the workload and the deadline
// allocation, checks the history, the whole servers' answers and the
// deadline, and returns the figures.
func (c *cluster) endure(t *testing.T, f fault) figure {
	leader := c.waitLeader(t)
	c.waitClientReady(t)
	allocID, deadline := c.runDeadlineJob(t, f.slug+"-deadline")
	w := c.startWorkload(t, f.slug)
	t.Cleanup(func() { w.finish() })
	whole := f.whole(c, leader)

	// The fault starts half its hold before the deadline.
	time.Sleep(time.Until(deadline.Add(-hold / 2)))
	must.True(t, time.Until(deadline) > time.Second, must.Sprintf(
		"the deadline %s is too close to measure under the fault: the allocation took too long to start",
		deadline.Format(time.RFC3339Nano)))
	heal := sync.OnceFunc(f.inject(t, c, leader))
	t.Cleanup(heal)
	elected := watchElection(leader, whole)
	time.Sleep(hold)
	fig := figure{fault: f.name, elected: elected()}
	heal()

	c.waitLeader(t)
	time.Sleep(afterHeal)
	h := w.finish()
	fig.counts, fig.calls = h.Counts(), len(h.Operations())
	fig.verdict = h.Check(checkTimeout)
	fig.late = c.measureLateness(t, allocID, deadline)
	for _, s := range whole {
		fig.slowest = max(fig.slowest, w.slowestWriteOn(s))
	}
	t.Logf("%s (leader %s): new leader after %s; %d calls in the history (%s); %d jobs checked, anomalies %v, undecided %v; %s\n  %s",
		f.name, leader.name, ms(fig.elected), fig.calls, fig.counts, fig.verdict.Jobs,
		fig.verdict.Anomalies, fig.verdict.Undecided, fig.late, w.summary())

	if fig.verdict.Result != porcupine.Ok {
		fig.visuals = visualize(t, f, fig.verdict)
		t.Errorf("%s: the history is %s: jobs not linearizable %v, undecided %v; porcupine's visualizations (kept, the calls listed beside each in a .txt file): %v",
			f.name, fig.verdict.Result, fig.verdict.Anomalies, fig.verdict.Undecided, fig.visuals)
	}
	if f.hitsLeader && fig.elected == 0 {
		t.Errorf("%s: the servers it left whole elected no leader in %s", f.name, hold)
	}
	for _, s := range whole {
		if took, bound := w.slowestWriteOn(s), fig.elected+answerGrace; took > bound {
			t.Errorf("%s: server %s, which the fault left whole, took %s to answer a write, want at most %s (new leader after %s, and %s)",
				f.name, s.name, ms(took), ms(bound), ms(fig.elected), answerGrace)
		}
	}
	if fig.late.ended < 0 || fig.late.ended > killWithin {
		t.Errorf("%s: allocation %s's task ended %s after its deadline, want within [0, %s]",
			f.name, allocID, ms(fig.late.ended), killWithin)
	}
	return fig
}

// watchElection asks the whole servers, until the returned function is
// called, whether they know a leader other than old among them; the
// function returns how long after the start one first did, or 0.
func watchElection(old *member, whole []*member) func() time.Duration {
	start := time.Now()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan time.Duration, 1)
	go func() {
		defer close(done)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if newLeaderAmong(old, whole) {
				done <- time.Since(start)
				return
			}
		}
	}()
	return func() time.Duration {
		cancel()
		return <-done
	}
}

// newLeaderAmong reports whether one of servers names a leader among
// them other than old.
func newLeaderAmong(old *member, servers []*member) bool {
	for _, s := range servers {
		addr, err := s.quick.Status().Leader()
		if err != nil {
			continue
		}
		for _, l := range servers {
			if l != old && l.rpcAddr() == addr {
				return true
			}
		}
	}
	return false
}

// visualize writes porcupine's visualizations of the jobs v found not
// linearizable, or could not decide on, to a directory that the test
// leaves for whoever reads its failure, and returns their paths.
func visualize(t *testing.T, f fault, v Verdict) []string {
	dir, err := os.MkdirTemp("", "drover-partition-"+f.slug+"-")
	if err != nil {
		t.Errorf("make a directory for the visualizations: %v", err)
		return nil
	}
	paths, err := v.Visualize(dir)
	if err != nil {
		t.Errorf("%v", err)
	}
	return paths
}

// report logs the suite's figures: how many histories were checked, the
// calls in each, the anomalies found, how long the whole servers took to
// answer and the deadline's lateness under each fault.
func report(t *testing.T, figures []figure) {
	var lines []string
	anomalies := 0
	for _, f := range figures {
		anomalies += len(f.verdict.Anomalies)
		line := fmt.Sprintf("  %-42s %4d calls, %d jobs, %d anomalies; new leader after %s, slowest write to a whole server %s; %s",
			f.fault, f.calls, f.verdict.Jobs, len(f.verdict.Anomalies), ms(f.elected), ms(f.slowest), f.late)
		if len(f.visuals) > 0 {
			line += fmt.Sprintf("; visualizations %v", f.visuals)
		}
		lines = append(lines, line)
	}
	t.Logf("partition suite: %d histories checked, %d anomalies found\n%s",
		len(figures), anomalies, strings.Join(lines, "\n"))
}
