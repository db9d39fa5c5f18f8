package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/command/agent"
	agentconfig "github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/e2e/agentproc"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/nomad/stream"
)

// Targets of the event stream benchmarks.
const (
	eventTimeouts             = 20
	targetTerminalEventMedian = 20 * time.Millisecond
	eventConsumers            = 100
	targetConsumersMiB        = 5.0
	targetRegisterSlowdown    = 0.05
)

// BenchmarkEvents_TerminalLatency runs eventTimeouts batch jobs, one after
// another, each a `sleep 1000` with max_run_duration 1s, on an agent in
// this process (server and client, raw_exec through the built binary's
// task supervisor), and measures for each how long after the server
// applied the allocation's terminal update an event stream consumer over
// HTTP has the event: the consumer's receipt of the frame minus the
// moment the FSM published the batch, right after it applied the entry
// (stream.Batch.Published), as a subscription in the server's process
// reads it. That subscription's goroutine runs when the scheduler lets
// it, often after the HTTP consumer has the frame, so it is the batch's
// own time that counts, never when that goroutine saw it.
func BenchmarkEvents_TerminalLatency(b *testing.B) {
	var lateness []time.Duration
	for range b.N {
		a := inProcessAgent(b)
		applied := watchApplied(b, a)
		seen := streamFrames(b, "http://"+a.HTTPAddr()+"/v1/event/stream?topic=Allocation")
		p := &agentProc{Agent: &agentproc.Agent{Addr: "http://" + a.HTTPAddr()}, b: b}
		p.waitUntil("node ready", pollGap, time.Minute, p.nodeReady)
		for i := range eventTimeouts {
			id := fmt.Sprintf("bench-events-%02d", i)
			if err := p.registerJob(maxRunJob(id, 1, time.Second)); err != nil {
				b.Fatal(err)
			}
			index := waitTerminal(b, seen, id)
			lateness = append(lateness, seen.at(index).Sub(applied.at(b, index)))
		}
		if err := a.Shutdown(); err != nil {
			b.Fatal(err)
		}
	}
	reportLateness(b, "terminal_event_after_apply", lateness, targetTerminalEventMedian, 0)
}

// inProcessAgent starts a dev agent in this process whose raw_exec tasks
// run under the built drover binary's task supervisor.
func inProcessAgent(b *testing.B) *agent.Agent {
	b.Helper()
	cfg := agentconfig.DevConfig()
	cfg.Ports = agentconfig.Ports{HTTP: 0, RPC: 0}
	cfg.NodeName = "bench-events"
	cfg.Client.AllocDir = filepath.Join(b.TempDir(), "alloc")
	cfg.TaskSupervisorCmd = []string{agentproc.Binary(b), "task-supervisor"}
	a, err := agent.NewAgent(cfg, hclog.NewNullLogger())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = a.Shutdown() })
	return a
}

// appliedTimes records when the server published each raft index's events.
type appliedTimes struct {
	mu    sync.Mutex
	times map[uint64]time.Time
}

// watchApplied subscribes inside the server to every event and records,
// per index, when the FSM published it.
func watchApplied(b *testing.B, a *agent.Agent) *appliedTimes {
	b.Helper()
	sub, err := a.Server().SubscribeEvents(stream.SubscribeRequest{Namespace: "*"})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	t := &appliedTimes{times: map[uint64]time.Time{}}
	go func() {
		for {
			batch, err := sub.Next(ctx)
			if err != nil {
				if ctx.Err() == nil && !errors.Is(err, stream.ErrClosed) {
					b.Errorf("server-side subscription ended: %v", err)
				}
				return
			}
			t.mu.Lock()
			t.times[batch.Index] = batch.Published
			t.mu.Unlock()
		}
	}()
	return t
}

// at is when the FSM published index, waiting for the server-side
// subscription to have read it.
func (t *appliedTimes) at(b *testing.B, index uint64) time.Time {
	b.Helper()
	var at time.Time
	waitfor.True(b, fmt.Sprintf("the server-side subscription to read index %d", index), func() bool {
		t.mu.Lock()
		defer t.mu.Unlock()
		var ok bool
		at, ok = t.times[index]
		return ok
	}, wait.Gap(time.Millisecond), wait.Timeout(10*time.Second))
	return at
}

// frames is what an HTTP consumer of the event stream received: when each
// index arrived, and the allocations' terminal events by job.
type frames struct {
	mu       sync.Mutex
	received map[uint64]time.Time
	terminal map[string]uint64 // job ID -> index of its allocation's terminal event
	wake     chan struct{}
}

// streamFrames consumes the event stream at url as a client would,
// decoding every frame, until the benchmark ends.
func streamFrames(b *testing.B, url string) *frames {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %s", url, resp.Status)
	}
	f := &frames{received: map[uint64]time.Time{}, terminal: map[string]uint64{}, wake: make(chan struct{}, 1)}
	go func() {
		defer resp.Body.Close()
		rd := bufio.NewReaderSize(resp.Body, 1<<20)
		for {
			line, err := rd.ReadBytes('\n')
			if err != nil {
				return
			}
			now := time.Now()
			var frame struct {
				Index  uint64
				Events []struct {
					Payload struct {
						Allocation *struct {
							JobID        string
							ClientStatus string
						}
					}
				}
			}
			if json.Unmarshal(line, &frame) != nil || frame.Index == 0 {
				continue
			}
			f.mu.Lock()
			f.received[frame.Index] = now
			for _, e := range frame.Events {
				if a := e.Payload.Allocation; a != nil && a.ClientStatus == "complete" {
					if _, ok := f.terminal[a.JobID]; !ok {
						f.terminal[a.JobID] = frame.Index
					}
				}
			}
			f.mu.Unlock()
			select {
			case f.wake <- struct{}{}:
			default:
			}
		}
	}()
	return f
}

func (f *frames) at(index uint64) time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.received[index]
}

// waitTerminal waits until the consumer has the terminal event of the
// job's allocation and returns its index.
func waitTerminal(b *testing.B, f *frames, jobID string) uint64 {
	b.Helper()
	timeout := time.After(time.Minute)
	for {
		f.mu.Lock()
		index, ok := f.terminal[jobID]
		f.mu.Unlock()
		if ok {
			return index
		}
		select {
		case <-f.wake:
		case <-timeout:
			b.Fatalf("no terminal event for job %s within a minute", jobID)
		}
	}
}

// BenchmarkEvents_HundredConsumers measures what eventConsumers event
// stream consumers cost a server, in two shapes:
//
//   - watching: each follows one job of its own (topic=Job:<id> and
//     Allocation:<id>), as a browser tab on a job's page does;
//   - everything: each reads every event (topic=*), so the server sends
//     eventConsumers times every event it publishes.
//
// Two agents run side by side (dev servers with no client, so that the
// registrations' evaluations stay blocked and no task runs): the measured
// one, which the consumers connect to, and its twin, which none does. The
// same registrations go to both, interleaved, so that whatever else the
// machine runs weighs on both alike at every moment; the slowdown is how
// much the measured agent's registration throughput falls behind its
// twin's with the consumers connected, against the same ratio without
// them (rounds alternate, without, with, ...; the median round counts).
// The agents' CPU time per registration (from /proc) is compared the same
// way. Memory is the measured agent's PSS with the consumers connected and
// caught up, against just before they connected.
func BenchmarkEvents_HundredConsumers(b *testing.B) {
	dir := b.TempDir()
	config := filepath.Join(dir, "agent.hcl")
	if err := os.WriteFile(config, []byte("client {\n  enabled = false\n}\n\nlimits {\n  http_max_conns_per_client = 0\n}\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	watching := func(i int) string {
		id := fmt.Sprintf("bench-watched-%03d", i)
		return "/v1/event/stream?topic=Job:" + id + "&topic=Allocation:" + id
	}
	everything := func(int) string { return "/v1/event/stream?topic=*" }
	cost := map[string][]float64{}
	for n := range b.N {
		var pair agentPair
		for i := range pair {
			pair[i] = startAgent(b, dir, 0, 0, "-dev", "-config", config)
		}
		for _, p := range pair {
			p.waitUntil("a leader", pollGap, time.Minute, func() (bool, error) {
				var leader string
				err := p.getJSON("/v1/status/leader", &leader)
				return leader != "", err
			})
		}
		pair.register(b, fmt.Sprintf("bench-warmup-%d", n), 300)
		for _, shape := range []struct {
			name string
			url  func(int) string
		}{{"watching", watching}, {"everything", everything}} {
			c := consumerCost(b, pair, fmt.Sprintf("%s-%d", shape.name, n), shape.url)
			cost[shape.name+"_MiB"] = append(cost[shape.name+"_MiB"], c.mib)
			cost[shape.name+"_slowdown_pct"] = append(cost[shape.name+"_slowdown_pct"], 100*c.slowdown)
			cost[shape.name+"_cpu_pct"] = append(cost[shape.name+"_cpu_pct"], 100*c.cpu)
		}
		for _, p := range pair {
			p.stop()
		}
	}
	for _, name := range []string{"watching", "everything"} {
		mib, pct, cpu := meanOf(cost[name+"_MiB"]), meanOf(cost[name+"_slowdown_pct"]), meanOf(cost[name+"_cpu_pct"])
		b.ReportMetric(mib, name+"_MiB")
		b.ReportMetric(pct, name+"_register_slowdown_pct")
		b.ReportMetric(cpu, name+"_agent_cpu_per_register_pct")
		b.Logf("%d consumers %s: %.2f MiB (target ≤ %.0f MiB), registrations %.1f%% slower (target ≤ %.0f%%), agent CPU per registration %+.1f%%",
			eventConsumers, name, mib, targetConsumersMiB, pct, 100*targetRegisterSlowdown, cpu)
	}
}

// agentPair is the measured agent, then its twin.
type agentPair [2]*agentProc

// consumersCost is what eventConsumers consumers cost an agent: memory in
// MiB, how much slower registrations go and how much more agent CPU each
// takes, as fractions.
type consumersCost struct {
	mib, slowdown, cpu float64
}

// consumerCost measures eventConsumers consumers of the streams at url(i)
// on the pair's measured agent.
func consumerCost(b *testing.B, pair agentPair, name string, url func(int) string) consumersCost {
	b.Helper()
	const (
		rounds = 7
		jobs   = 300
	)
	// The watched jobs exist, so that each consumer is sent its own.
	for i := range eventConsumers {
		for _, p := range pair {
			if err := p.registerJob(unplaceableJob(fmt.Sprintf("bench-watched-%03d", i))); err != nil {
				b.Fatal(err)
			}
		}
	}
	measured := pair[0]
	var cost consumersCost
	// Slowdowns in ppm, as durations for median.
	slowdowns, cpus := make([]time.Duration, rounds), make([]time.Duration, rounds)
	for r := range rounds {
		without := pair.register(b, fmt.Sprintf("bench-%s-%d-without", name, r), jobs)
		idle := settledPSS(measured.Pid())
		c := startConsumers(b, eventConsumers, func(i int) string { return measured.Addr + url(i) })
		c.waitAllRead(b, 1)
		if r == 0 {
			connected := settledPSS(measured.Pid())
			cost.mib = float64(connected-idle) / 1024
			b.Logf("%s: %d consumers connected: PSS %d → %d KiB, %.2f MiB", name, eventConsumers, idle, connected, cost.mib)
		}
		with := pair.register(b, fmt.Sprintf("bench-%s-%d-with", name, r), jobs)
		c.stop()
		slowdowns[r] = time.Duration(1e6 * (1 - with.relativeRate()/without.relativeRate()))
		cpus[r] = time.Duration(1e6 * (with.relativeCPU()/without.relativeCPU() - 1))
		b.Logf("%s round %d: without consumers %s; with %d %s (they read %d frames, %.1f MiB; %d streams ended early)",
			name, r, without, eventConsumers, with, c.frames.Load(), float64(c.bytes())/(1<<20), c.ended.Load())
		if n := c.ended.Load(); n > 0 {
			b.Errorf("%s round %d: %d of %d streams ended before the round did (dropped: fell behind the buffer?)", name, r, n, eventConsumers)
		}
	}
	cost.slowdown = float64(median(slowdowns)) / 1e6
	cost.cpu = float64(median(cpus)) / 1e6
	return cost
}

// pairedRegistrations is the measure of registrations made on both agents
// of a pair, interleaved: per agent, how long each of its requests took
// and the CPU time it spent meanwhile (user and system).
type pairedRegistrations struct {
	jobs int
	took [2][]time.Duration
	cpu  [2]time.Duration
}

// rate is the registrations per second of agent i: with pairedWorkers
// requests in flight, pairedWorkers over the time one took, as the mean
// of the middle 80% (a request that waited for the machine, not for the
// agent, such as one whose process was descheduled for a while by
// another's, is at the edges).
func (r pairedRegistrations) rate(i int) float64 {
	return float64(pairedWorkers) / trimmedMean(r.took[i], 0.1).Seconds()
}

// trimmedMean is the mean of d without its lowest and highest fraction.
func trimmedMean(d []time.Duration, fraction float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	cut := int(float64(len(s)) * fraction)
	s = s[cut : len(s)-cut]
	var sum time.Duration
	for _, x := range s {
		sum += x
	}
	return sum / time.Duration(len(s))
}

// relativeRate is the measured agent's throughput over its twin's.
func (r pairedRegistrations) relativeRate() float64 { return r.rate(0) / r.rate(1) }

// relativeCPU is the measured agent's CPU time over its twin's.
func (r pairedRegistrations) relativeCPU() float64 { return float64(r.cpu[0]) / float64(r.cpu[1]) }

func (r pairedRegistrations) String() string {
	per := func(i int) time.Duration { return r.cpu[i] / time.Duration(r.jobs) }
	return fmt.Sprintf("%.0f registrations/s, CPU %s each (twin: %.0f/s, %s each)", r.rate(0), per(0), r.rate(1), per(1))
}

// pairedWorkers is how many registrations are in flight on each agent.
const pairedWorkers = 4

// register registers jobs unplaceable jobs on both agents, each job on
// both in turn (the first of the two alternating), pairedWorkers at a
// time.
func (pair agentPair) register(b *testing.B, prefix string, jobs int) pairedRegistrations {
	b.Helper()
	next := make(chan int)
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed atomic.Value
	)
	out := pairedRegistrations{jobs: jobs}
	var cpuBefore [2]time.Duration
	for i, p := range pair {
		cpuBefore[i] = cpuTime(b, p.Pid())
	}
	for range pairedWorkers {
		wg.Go(func() {
			for n := range next {
				job := unplaceableJob(fmt.Sprintf("%s-%03d", prefix, n))
				for k := range pair {
					i := (n + k) % 2
					start := time.Now()
					if err := pair[i].registerJob(job); err != nil {
						failed.Store(err)
					}
					took := time.Since(start)
					mu.Lock()
					out.took[i] = append(out.took[i], took)
					mu.Unlock()
				}
			}
		})
	}
	for n := range jobs {
		next <- n
	}
	close(next)
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		b.Fatal(err)
	}
	for i, p := range pair {
		out.cpu[i] = cpuTime(b, p.Pid()) - cpuBefore[i]
	}
	return out
}

// cpuTime is the user and system CPU time a process has used, from
// /proc/<pid>/stat, in clock ticks of 10 ms (USER_HZ on Linux).
func cpuTime(b *testing.B, pid int) time.Duration {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// The command name, in parentheses, may hold spaces: the fields
	// counted from after it, state first, put utime and stime 12th and
	// 13th.
	_, rest, ok := strings.Cut(string(data), ") ")
	fields := strings.Fields(rest)
	if !ok || len(fields) < 13 {
		b.Fatalf("/proc/%d/stat: unexpected %q", pid, data)
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			b.Fatalf("/proc/%d/stat: %v", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

// unplaceableJob is a batch job that no node can run: it registers, and
// its evaluation is blocked, without any task starting.
func unplaceableJob(id string) map[string]any {
	job := rawExecJob(id, "batch", 1, 20, 32, "/bin/true")
	job["Constraints"] = []any{map[string]any{"LTarget": "${attr.kernel.name}", "RTarget": "no-such-kernel", "Operand": "="}}
	return job
}

// settledPSS is the agent process's PSS in KiB once the Go runtime has had
// a moment to return what it freed: the median of a few readings.
func settledPSS(pid int) int64 {
	var readings []time.Duration // PSS in KiB, held as durations for median
	for range 5 {
		time.Sleep(200 * time.Millisecond)
		readings = append(readings, time.Duration(memKiB(pid, "Pss")))
	}
	return int64(median(readings))
}

// consumers are HTTP clients of the event stream that count what they
// read and decode nothing: the cost measured is the server's. A real
// consumer runs on another machine; these share the agent's cores, so
// each reads in bulk what arrived, then pauses consumerReadGap, rather
// than waking for each of the server's writes: a reader woken a hundred
// times a second, times a hundred, would take from the agent the CPU it
// is measured by. The server's writes do not wait on it: the socket's
// buffers hold far more than a gap's worth.
type consumers struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	frames atomic.Int64
	read   []atomic.Int64 // bytes each consumer has read
	// ended counts the streams that the server ended, such as by
	// dropping a consumer that fell behind.
	ended atomic.Int64
}

// consumerReadGap is how long a benchmark consumer pauses between reads.
const consumerReadGap = 20 * time.Millisecond

func startConsumers(b *testing.B, n int, url func(int) string) *consumers {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := &consumers{cancel: cancel, read: make([]atomic.Int64, n)}
	b.Cleanup(c.stop)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n, ReadBufferSize: 64 << 10}}
	for i := range n {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url(i), nil)
		if err != nil {
			b.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			b.Fatalf("consumer %d: %v", i, err)
		}
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("consumer %d: %s", i, resp.Status)
		}
		c.wg.Go(func() {
			defer resp.Body.Close()
			buf := make([]byte, 256<<10)
			for {
				n, err := resp.Body.Read(buf)
				c.read[i].Add(int64(n))
				c.frames.Add(int64(bytes.Count(buf[:n], newline)))
				if err != nil {
					if ctx.Err() == nil {
						c.ended.Add(1)
					}
					return
				}
				if n < len(buf) {
					select {
					case <-time.After(consumerReadGap):
					case <-ctx.Done():
						return
					}
				}
			}
		})
	}
	return c
}

var newline = []byte{'\n'}

// bytes is how much the consumers have read in all.
func (c *consumers) bytes() int64 {
	var total int64
	for i := range c.read {
		total += c.read[i].Load()
	}
	return total
}

// waitAllRead waits until every consumer has read at least atLeast
// bytes: each is connected and has been sent events.
func (c *consumers) waitAllRead(b *testing.B, atLeast int64) {
	b.Helper()
	waitfor.True(b, "every consumer to read its stream", func() bool {
		for i := range c.read {
			if c.read[i].Load() < atLeast {
				return false
			}
		}
		return true
	}, wait.Gap(pollGap), wait.Timeout(time.Minute))
}

func (c *consumers) stop() {
	c.cancel()
	c.wg.Wait()
}

func meanOf(v []float64) float64 {
	var sum float64
	for _, x := range v {
		sum += x
	}
	return sum / float64(len(v))
}
