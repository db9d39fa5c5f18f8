package partition

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/jobspec2"
)

// The workload: on each server, a call every callPause, whether the
// calls before it were answered or not, on jobsPerHistory jobs, maxCalls
// in all, with at most maxWritesInFlight writes and maxReadsInFlight reads
// under way. The checker's work grows exponentially with the calls under
// way at once on one job, and the bounds keep it to seconds.
//
// A caller gives up on a read after readTimeout, which frees its place:
// reads keep coming while a server hangs (frozen, or cut off), so that
// some made late in a fault are answered when it heals, and show whether
// what the server held then was stale. It waits up to callTimeout for a
// write, to learn how it ended; one that times out has an unknown outcome.
const (
	callPause         = 50 * time.Millisecond
	maxWritesInFlight = 3
	maxReadsInFlight  = 4
	maxCalls          = 600
	jobsPerHistory    = 5
	readTimeout       = 4 * time.Second
	callTimeout       = 15 * time.Second
)

// opsJob is the job the callers register: a batch job of no allocations,
// so that its registers and stops cost the cluster raft writes and
// evaluations and nothing more. The value is in its meta.
const opsJob = `job "template" {
  type = "batch"
  meta {
    value = "none"
  }
  group "g" {
    count = 0
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/true"
      }
    }
  }
}`

// workload is the calls of one history, made until finish.
type workload struct {
	history *History
	jobs    []string
	prefix  string
	spec    *api.Job

	stop     chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup
	values   atomic.Int64

	// idle are caller IDs free for a new call: each call under way has
	// one of its own, so that the visualization shows no two calls of one
	// caller at once. A call of unknown outcome keeps its ID for ever.
	mu   sync.Mutex
	idle []int
	// slowest is each server's longest write (a read is given up after
	// readTimeout); problems counts the answers other than success (and
	// not found), by server, call and answer.
	slowest  map[string]time.Duration
	problems map[string]int
}

// startWorkload starts calling every server, on jobs named after prefix.
func (c *cluster) startWorkload(t *testing.T, prefix string) *workload {
	t.Helper()
	spec, err := jobspec2.ParseWithConfig(&jobspec2.ParseConfig{Path: "ops.hcl", Body: []byte(opsJob)})
	must.NoError(t, err)
	w := &workload{
		history:  NewHistory(),
		prefix:   prefix,
		spec:     spec,
		stop:     make(chan struct{}),
		slowest:  map[string]time.Duration{},
		problems: map[string]int{},
	}
	for i := range jobsPerHistory {
		w.jobs = append(w.jobs, fmt.Sprintf("%s-%d", prefix, i))
	}
	for _, s := range c.servers {
		w.wg.Add(1)
		go w.dispatch(s)
	}
	return w
}

// finish stops new calls and waits for the calls under way, each of which
// ends within callTimeout. Later calls only wait.
func (w *workload) finish() *History {
	w.stopOnce.Do(func() { close(w.stop) })
	w.wg.Wait()
	return w.history
}

// dispatch starts a call on server s every callPause until the workload
// finishes or it started maxCalls, and waits for them. A write that would
// be one too many under way becomes a read; a read too many is not made.
func (w *workload) dispatch(s *member) {
	defer w.wg.Done()
	var calls sync.WaitGroup
	defer calls.Wait()
	var writes, reads atomic.Int32
	tick := time.NewTicker(callPause)
	defer tick.Stop()
	for range maxCalls {
		select {
		case <-w.stop:
			return
		case <-tick.C:
		}
		in := w.next()
		if in.Kind != Read && writes.Load() >= maxWritesInFlight {
			in = Input{Kind: Read, JobID: in.JobID}
		}
		under := &writes
		if in.Kind == Read {
			if reads.Load() >= maxReadsInFlight {
				continue
			}
			under = &reads
		}
		under.Add(1)
		calls.Add(1)
		go func() {
			defer calls.Done()
			defer under.Add(-1)
			w.call(s, in)
		}()
	}
}

// call makes the call in on server s and records it.
func (w *workload) call(s *member, in Input) {
	client := w.caller()
	call := w.history.Begin(client, in)
	began := time.Now()
	out, note := w.do(s, in)
	took := time.Since(began)
	call.End(out, s.name+": "+note)

	w.mu.Lock()
	defer w.mu.Unlock()
	if out.Outcome != Unknown || in.Kind == Read {
		w.idle = append(w.idle, client)
	}
	if in.Kind != Read {
		w.slowest[s.name] = max(w.slowest[s.name], took)
	}
	if out.Outcome != Done {
		w.problems[fmt.Sprintf("%s %s %s: %.200s", s.name, in.Kind, out.Outcome, note)]++
	}
}

// slowestWriteOn is the longest server s took to answer a write, or to
// have its caller give up on it.
func (w *workload) slowestWriteOn(s *member) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.slowest[s.name]
}

// summary says, for the log, how long each server's slowest write took and
// what went wrong how often.
func (w *workload) summary() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var b strings.Builder
	b.WriteString("slowest write:")
	for _, name := range slices.Sorted(maps.Keys(w.slowest)) {
		fmt.Fprintf(&b, " %s %s", name, ms(w.slowest[name]))
	}
	for _, p := range slices.Sorted(maps.Keys(w.problems)) {
		fmt.Fprintf(&b, "\n    %4d × %s", w.problems[p], p)
	}
	return b.String()
}

// caller is an idle caller ID, or a new one.
func (w *workload) caller() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	if n := len(w.idle); n > 0 {
		id := w.idle[n-1]
		w.idle = w.idle[:n-1]
		return id
	}
	return w.history.Client()
}

// next picks the next call: a job, and register (2 in 5), stop (1 in 5)
// or read (2 in 5). Each register writes a value of its own.
func (w *workload) next() Input {
	id := w.jobs[rand.IntN(len(w.jobs))]
	switch r := rand.IntN(5); {
	case r < 2:
		return Input{Kind: Register, JobID: id, Value: fmt.Sprintf("%s-w%d", w.prefix, w.values.Add(1))}
	case r < 3:
		return Input{Kind: Stop, JobID: id}
	}
	return Input{Kind: Read, JobID: id}
}

// do makes the call in through server s's HTTP API and returns its output
// and what the server said.
func (w *workload) do(s *member, in Input) (Output, string) {
	timeout := callTimeout
	if in.Kind == Read {
		timeout = readTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	wo := (&api.WriteOptions{}).WithContext(ctx)
	var err error
	switch in.Kind {
	case Register:
		_, _, err = s.api.Jobs().Register(w.job(in), wo)
	case Stop:
		_, _, err = s.api.Jobs().Deregister(in.JobID, false, wo)
	case Read:
		return ReadOutput(s.api.Jobs().Info(in.JobID, (&api.QueryOptions{}).WithContext(ctx)))
	}
	if err != nil {
		return Output{Outcome: WriteOutcome(err)}, err.Error()
	}
	return Output{Outcome: Done}, "ok"
}

// job is the job a register writes.
func (w *workload) job(in Input) *api.Job {
	job := *w.spec
	id := in.JobID
	job.ID, job.Name = &id, &id
	job.Meta = map[string]string{"value": in.Value}
	return &job
}
