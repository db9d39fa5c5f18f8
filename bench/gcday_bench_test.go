package bench

import (
	"bytes"
	"runtime"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/nomad/gc"
	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/nomad/periodic"
	"github.com/drover-io/drover/structs"
)

// A periodic job launched every 10 seconds for a simulated day: 8,640
// children, each with its evaluation and one allocation that runs and
// completes, written through the FSM as the leader would write them,
// with simulated time (no waiting). Garbage collection runs every
// simulated job_gc_interval (5 minutes) as the leader's Collector would,
// planning on the FSM's state and writing its GCDelete entries through
// the FSM. The benchmark reports, at the end of the day, the objects in
// the state, the size of a raft snapshot of it, and the heap the state
// holds (after a forced Go GC), for: no garbage collection, Nomad's
// default thresholds (a dead child stays 4 hours), and keep_last = 2.

const (
	gcDayLaunches = 24 * 60 * 60 / 10
	gcDayInterval = 10 * time.Second
)

// BenchmarkGCDay_Off keeps everything: the state before garbage
// collection existed.
func BenchmarkGCDay_Off(b *testing.B) { benchmarkGCDay(b, false, 0) }

// BenchmarkGCDay_DefaultThresholds collects with Nomad's defaults.
func BenchmarkGCDay_DefaultThresholds(b *testing.B) { benchmarkGCDay(b, true, 0) }

// BenchmarkGCDay_KeepLast2 collects with keep_last = 2.
func BenchmarkGCDay_KeepLast2(b *testing.B) { benchmarkGCDay(b, true, 2) }

func benchmarkGCDay(b *testing.B, collect bool, keepLast int) {
	for range b.N {
		heapBefore := liveHeap()
		d := newGCDay(b, keepLast)
		start := time.Now()
		d.run(b, collect)
		elapsed := time.Since(start)
		objs := d.objects(b)
		snap := d.snapshotBytes(b)
		heap := liveHeap() - heapBefore
		runtime.KeepAlive(d.fsm)

		b.ReportMetric(float64(objs.jobs), "jobs")
		b.ReportMetric(float64(objs.evals), "evals")
		b.ReportMetric(float64(objs.allocs), "allocs")
		b.ReportMetric(float64(objs.total()), "objects")
		b.ReportMetric(float64(snap), "snapshot-bytes")
		b.ReportMetric(float64(heap), "state-heap-bytes")
		b.ReportMetric(float64(d.gcEntries), "gc-entries")
		b.ReportMetric(elapsed.Seconds(), "day-s")
		b.Logf("keep_last=%d collect=%v: %d jobs, %d evals, %d allocs; snapshot %d B; heap %d B; %d GC entries; simulated in %s",
			keepLast, collect, objs.jobs, objs.evals, objs.allocs, snap, heap, d.gcEntries, elapsed.Round(time.Millisecond))
	}
}

// liveHeap is the heap in use after a full Go garbage collection.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// gcDay is the FSM a simulated day is written to.
type gcDay struct {
	fsm       *nomad.FSM
	parent    *structs.Job
	node      *structs.Node
	start     time.Time
	index     uint64
	gcEntries int
}

func newGCDay(b *testing.B, keepLast int) *gcDay {
	fsm, err := nomad.NewFSM(hclog.NewNullLogger())
	if err != nil {
		b.Fatal(err)
	}
	parent := &structs.Job{
		ID: "every-10s", Name: "every-10s", Type: structs.JobTypeBatch,
		Datacenters: []string{"dc1"},
		Periodic: &structs.PeriodicConfig{
			Enabled: true, Spec: "*/10 * * * * * *", SpecType: structs.PeriodicSpecCron, KeepLast: keepLast,
		},
		TaskGroups: []*structs.TaskGroup{{
			Name: "work", Count: 1,
			Tasks: []*structs.Task{{
				Name: "work", Driver: "raw_exec",
				Config:    map[string]any{"command": "/bin/sh", "args": []any{"-c", "date; sleep 2"}},
				Resources: &structs.Resources{CPU: 100, MemoryMB: 64},
			}},
		}},
	}
	parent.Canonicalize()
	d := &gcDay{
		fsm:    fsm,
		parent: parent,
		node:   &structs.Node{ID: structs.GenerateUUID(), Name: "node-1", Datacenter: "dc1", Status: structs.NodeStatusReady},
		start:  time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
	}
	d.apply(b, &logentry.NodeRegister{Node: d.node})
	d.apply(b, &logentry.JobRegister{Job: parent, NamespaceChecked: true})
	return d
}

func (d *gcDay) apply(b *testing.B, entry logentry.Entry) {
	if err := entry.Validate(); err != nil {
		b.Fatalf("%s: %v", entry.MessageType(), err)
	}
	data, err := logentry.Encode(entry.MessageType(), entry)
	if err != nil {
		b.Fatal(err)
	}
	d.index++
	if resp := d.fsm.Apply(&raft.Log{Index: d.index, Term: 1, Type: raft.LogCommand, Data: data}); resp != nil {
		if err, ok := resp.(error); ok {
			b.Fatalf("apply %s at %d: %v", entry.MessageType(), d.index, err)
		}
	}
}

// run writes the day's launches, and a garbage collection pass every
// simulated job_gc_interval when collect is set.
func (d *gcDay) run(b *testing.B, collect bool) {
	nextGC := d.start.Add(gc.DefaultInterval)
	for i := range gcDayLaunches {
		at := d.start.Add(time.Duration(i) * gcDayInterval)
		d.launch(b, at)
		if collect && !at.Before(nextGC) {
			d.collect(b, at)
			nextGC = nextGC.Add(gc.DefaultInterval)
		}
	}
}

// launch writes one child's life: registered with its evaluation, placed,
// run for 2 seconds, complete, its evaluation complete, the job dead.
func (d *gcDay) launch(b *testing.B, at time.Time) {
	child := periodic.DeriveChild(d.parent, at, at.UnixNano())
	eval := &structs.Evaluation{
		ID: structs.GenerateUUID(), Namespace: child.Namespace, Priority: child.Priority, Type: child.Type,
		TriggeredBy: structs.EvalTriggerPeriodicJob, JobID: child.ID, Status: structs.EvalStatusPending,
		CreateTime: at.UnixNano(), ModifyTime: at.UnixNano(),
	}
	d.apply(b, &logentry.JobRegister{Job: child, Eval: eval, NamespaceChecked: true})
	stored, err := d.fsm.State().JobByID(nil, child.Namespace, child.ID)
	if err != nil || stored == nil {
		b.Fatalf("child %s not stored: %v", child.ID, err)
	}
	alloc := &structs.Allocation{
		ID: structs.GenerateUUID(), Namespace: child.Namespace, EvalID: eval.ID,
		Name: structs.AllocName(child.ID, "work", 0), NodeID: d.node.ID, NodeName: d.node.Name,
		JobID: child.ID, TaskGroup: "work", Resources: &structs.Resources{CPU: 100, MemoryMB: 64},
		DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusPending,
		CreateTime: at.Add(50 * time.Millisecond).UnixNano(), ModifyTime: at.Add(50 * time.Millisecond).UnixNano(),
	}
	done := *eval
	done.Status = structs.EvalStatusComplete
	done.ModifyTime = at.Add(50 * time.Millisecond).UnixNano()
	d.apply(b, &logentry.AllocUpdate{Allocs: []*structs.Allocation{alloc}, Evals: []*structs.Evaluation{&done}, Job: stored})
	end := at.Add(2 * time.Second)
	d.apply(b, &logentry.AllocClientUpdate{Allocs: []*structs.Allocation{{
		ID: alloc.ID, ClientStatus: structs.AllocClientStatusComplete, ModifyTime: end.UnixNano(),
		TaskStates: map[string]*structs.TaskState{"work": {
			State: structs.TaskStateDead, StartedAt: at.Add(100 * time.Millisecond), FinishedAt: end,
			Events: []*structs.TaskEvent{
				{Type: structs.TaskReceived, Time: at.Add(60 * time.Millisecond).UnixNano()},
				{Type: structs.TaskStarted, Time: at.Add(100 * time.Millisecond).UnixNano()},
				{Type: structs.TaskTerminated, Time: end.UnixNano(), ExitCode: 0},
			},
		}},
	}}})
	d.apply(b, &logentry.JobStatusUpdate{Namespace: child.Namespace, JobID: child.ID, Status: structs.JobStatusDead})
}

// collect runs one pass at now, as the leader's Collector does.
func (d *gcDay) collect(b *testing.B, now time.Time) {
	st := d.fsm.State()
	var objs gc.Objects
	var err error
	if objs.Jobs, err = st.Jobs(nil); err != nil {
		b.Fatal(err)
	}
	if objs.Evals, err = st.Evals(nil); err != nil {
		b.Fatal(err)
	}
	if objs.Allocs, err = st.Allocs(nil); err != nil {
		b.Fatal(err)
	}
	if objs.Nodes, err = st.Nodes(nil); err != nil {
		b.Fatal(err)
	}
	res := gc.Plan(objs, gc.DefaultThresholds(), now, false)
	if res.Empty() {
		return
	}
	if res.Count() > logentry.MaxGCBatch {
		b.Fatalf("a pass of %d objects: the benchmark writes one entry per pass", res.Count())
	}
	d.apply(b, &logentry.GCDelete{Garbage: res})
	d.gcEntries++
}

// gcObjects counts the state's objects.
type gcObjects struct{ jobs, versions, evals, allocs int }

func (o gcObjects) total() int { return o.jobs + o.versions + o.evals + o.allocs }

func (d *gcDay) objects(b *testing.B) gcObjects {
	st := d.fsm.State()
	jobs, err := st.Jobs(nil)
	if err != nil {
		b.Fatal(err)
	}
	evals, err := st.Evals(nil)
	if err != nil {
		b.Fatal(err)
	}
	allocs, err := st.Allocs(nil)
	if err != nil {
		b.Fatal(err)
	}
	versions := 0
	for _, j := range jobs {
		vs, err := st.JobVersionsByID(nil, j.Namespace, j.ID)
		if err != nil {
			b.Fatal(err)
		}
		versions += len(vs)
	}
	return gcObjects{jobs: len(jobs), versions: versions, evals: len(evals), allocs: len(allocs)}
}

// snapshotBytes is the size of a raft snapshot of the state.
func (d *gcDay) snapshotBytes(b *testing.B) int {
	snap, err := d.fsm.Snapshot()
	if err != nil {
		b.Fatal(err)
	}
	sink := &memSink{}
	if err := snap.Persist(sink); err != nil {
		b.Fatal(err)
	}
	snap.Release()
	return sink.Len()
}

// memSink is a raft.SnapshotSink in memory.
type memSink struct{ bytes.Buffer }

func (s *memSink) ID() string    { return "bench" }
func (s *memSink) Cancel() error { return nil }
func (s *memSink) Close() error  { return nil }
