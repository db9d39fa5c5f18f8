package state

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/drover-io/drover/structs"
	"github.com/hashicorp/go-memdb"
	"github.com/shoenig/test/must"
)

func TestUpsertAllocs_New(t *testing.T) {
	s := newStore(t)
	job := mustUpsertJob(t, s, 5, testJob("example"))
	alloc := testAlloc(job, "eval-1", "node-1")
	alloc.DesiredStatus, alloc.ClientStatus = "", ""
	must.NoError(t, s.UpsertAllocs(10, []*structs.Allocation{alloc}))

	got, err := s.AllocByID(nil, alloc.ID)
	must.NoError(t, err)
	must.Eq(t, job, got.Job, must.Sprint("a plan's allocation gets the stored job"))
	must.Eq(t, 10, got.CreateIndex)
	must.Eq(t, 10, got.ModifyIndex)
	must.Eq(t, 10, got.AllocModifyIndex)
	must.Eq(t, structs.AllocDesiredStatusRun, got.DesiredStatus)
	must.Eq(t, structs.AllocClientStatusPending, got.ClientStatus)
}

func TestUpsertAllocs_AttachesJob(t *testing.T) {
	s := newStore(t)
	v0 := mustUpsertJob(t, s, 5, testJob("example"))
	carried := testAlloc(v0, "eval-1", "node-1")
	carried.Job = testJob("example")
	carried.Job.Priority = 1
	plain := testAlloc(v0, "eval-1", "node-1")
	must.NoError(t, s.UpsertAllocs(10, []*structs.Allocation{carried, plain}))

	changed := testJob("example")
	changed.Priority = 90
	v1 := mustUpsertJob(t, s, 20, changed)
	must.Eq(t, 1, v1.Version)

	// An in-place update moves to the current job; a stop keeps the job
	// the allocation runs.
	inPlace := testAlloc(v1, "eval-2", "node-1")
	inPlace.ID = carried.ID
	stop := testAlloc(v1, "eval-2", "node-1")
	stop.ID = plain.ID
	stop.DesiredStatus = structs.AllocDesiredStatusStop
	must.NoError(t, s.UpsertAllocs(30, []*structs.Allocation{inPlace, stop}))

	got, err := s.AllocByID(nil, carried.ID)
	must.NoError(t, err)
	must.Eq(t, v1, got.Job)
	got, err = s.AllocByID(nil, plain.ID)
	must.NoError(t, err)
	must.Eq(t, v0, got.Job)
	must.Eq(t, structs.AllocDesiredStatusStop, got.DesiredStatus)

	// With the job purged, an update keeps the allocation's own job, and a
	// new allocation has none to get.
	must.NoError(t, s.DeleteJob(40, v1.Namespace, v1.ID))
	update := testAlloc(v1, "eval-3", "node-1")
	update.ID = carried.ID
	must.NoError(t, s.UpsertAllocs(41, []*structs.Allocation{update}))
	got, err = s.AllocByID(nil, carried.ID)
	must.NoError(t, err)
	must.Eq(t, v1, got.Job)

	orphan := testAlloc(v1, "eval-3", "node-1")
	err = s.UpsertAllocs(42, []*structs.Allocation{orphan})
	must.ErrorContains(t, err, `job "example" is not in namespace "default"`)
}

func TestUpsertAllocs_KeepsClientAndCreationState(t *testing.T) {
	s := newStore(t)
	job := mustUpsertJob(t, s, 5, testJob("example"))
	alloc := testAlloc(job, "eval-1", "node-1")
	must.NoError(t, s.UpsertAllocs(10, []*structs.Allocation{alloc}))
	states := map[string]*structs.TaskState{"sleep": {State: structs.TaskStateRunning}}
	must.NoError(t, s.UpdateAllocsFromClient(11, []*structs.Allocation{{
		ID: alloc.ID, ClientStatus: structs.AllocClientStatusComplete, ClientDescription: "done", TaskStates: states,
	}}))

	cases := []struct {
		name       string
		status     string
		wantStatus string
		wantDesc   string
	}{
		{"empty status", "", structs.AllocClientStatusComplete, "done"},
		{"stale status from a plan", structs.AllocClientStatusRunning, structs.AllocClientStatusComplete, "done"},
		{"server declares it lost", structs.AllocClientStatusLost, structs.AllocClientStatusLost, "node down"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			index := uint64(20 + i)
			update := testAlloc(job, "eval-2", "node-1")
			update.ID = alloc.ID
			update.ClientStatus = tc.status
			update.ClientDescription = "node down"
			update.TaskStates = nil
			update.CreateTime = 1_900_000_000_000_000_000
			must.NoError(t, s.UpsertAllocs(index, []*structs.Allocation{update}))

			got, err := s.AllocByID(nil, alloc.ID)
			must.NoError(t, err)
			must.Eq(t, tc.wantStatus, got.ClientStatus)
			must.Eq(t, tc.wantDesc, got.ClientDescription)
			must.Eq(t, states, got.TaskStates)
			must.Eq(t, alloc.CreateTime, got.CreateTime, must.Sprint("CreateTime anchors max_run_duration and must not move"))
			must.Eq(t, 10, got.CreateIndex)
			must.Eq(t, index, got.ModifyIndex)
			must.Eq(t, index, got.AllocModifyIndex)
			must.Eq(t, "eval-2", got.EvalID)
		})
	}
}

func TestUpdateAllocsFromClient(t *testing.T) {
	s := newStore(t)
	job := mustUpsertJob(t, s, 5, testJob("example"))
	alloc := testAlloc(job, "eval-1", "node-1")
	must.NoError(t, s.UpsertAllocs(10, []*structs.Allocation{alloc}))
	before, err := s.AllocByID(nil, alloc.ID)
	must.NoError(t, err)
	beforeCopy := *before

	states := map[string]*structs.TaskState{"sleep": {State: structs.TaskStateDead}}
	update := &structs.Allocation{
		ID:                 alloc.ID,
		ClientStatus:       structs.AllocClientStatusComplete,
		ClientDescription:  structs.AllocTimeoutReasonMaxRunDuration,
		TaskStates:         states,
		NetworkStatus:      &structs.AllocNetworkStatus{InterfaceName: "eth0", Address: "172.26.64.2"},
		ModifyTime:         1_800_000_000_000_000_000,
		DesiredStatus:      structs.AllocDesiredStatusStop,
		NodeID:             "node-2",
		EvalID:             "eval-9",
		CreateTime:         42,
		CreateIndex:        1,
		AllocModifyIndex:   1,
		DesiredDescription: "client cannot set this",
	}
	unknown := &structs.Allocation{ID: "no-such-alloc", ClientStatus: structs.AllocClientStatusFailed}
	must.NoError(t, s.UpdateAllocsFromClient(20, []*structs.Allocation{update, unknown}))

	got, err := s.AllocByID(nil, alloc.ID)
	must.NoError(t, err)
	want := beforeCopy
	want.ClientStatus = structs.AllocClientStatusComplete
	want.ClientDescription = structs.AllocTimeoutReasonMaxRunDuration
	want.TaskStates = states
	want.NetworkStatus = &structs.AllocNetworkStatus{InterfaceName: "eth0", Address: "172.26.64.2"}
	want.ModifyTime = 1_800_000_000_000_000_000
	want.ModifyIndex = 20
	must.Eq(t, &want, got)

	// An update without a network status keeps the one reported.
	must.NoError(t, s.UpdateAllocsFromClient(21, []*structs.Allocation{{ID: alloc.ID, ClientStatus: structs.AllocClientStatusComplete}}))
	got, err = s.AllocByID(nil, alloc.ID)
	must.NoError(t, err)
	must.Eq(t, "172.26.64.2", got.NetworkStatus.Address)
	must.Eq(t, beforeCopy, *before, must.Sprint("the previously stored object must not change in place"))

	missing, err := s.AllocByID(nil, "no-such-alloc")
	must.NoError(t, err)
	must.Nil(t, missing)

	err = s.UpdateAllocsFromClient(22, []*structs.Allocation{{}})
	must.ErrorContains(t, err, "no allocation ID")
}

func TestUpdateAllocDesiredStatus(t *testing.T) {
	s := newStore(t)
	job := mustUpsertJob(t, s, 5, testJob("example"))
	a, b := testAlloc(job, "eval-1", "node-1"), testAlloc(job, "eval-1", "node-1")
	must.NoError(t, s.UpsertAllocs(10, []*structs.Allocation{a, b}))

	must.NoError(t, s.UpdateAllocDesiredStatus(20, []string{a.ID, "no-such-alloc"}, structs.AllocDesiredStatusStop, "stopped by user"))

	got, err := s.AllocByID(nil, a.ID)
	must.NoError(t, err)
	must.Eq(t, structs.AllocDesiredStatusStop, got.DesiredStatus)
	must.Eq(t, "stopped by user", got.DesiredDescription)
	must.Eq(t, 20, got.ModifyIndex)
	must.Eq(t, 20, got.AllocModifyIndex)
	must.Eq(t, structs.AllocClientStatusPending, got.ClientStatus)

	untouched, err := s.AllocByID(nil, b.ID)
	must.NoError(t, err)
	must.Eq(t, structs.AllocDesiredStatusRun, untouched.DesiredStatus)

	err = s.UpdateAllocDesiredStatus(21, []string{a.ID}, "pause", "")
	must.ErrorContains(t, err, `unknown status "pause"`)
}

func TestAllocReads(t *testing.T) {
	s := newStore(t)
	must.NoError(t, s.UpsertNamespaces(4, []*structs.Namespace{{Name: "other"}}))
	web := mustUpsertJob(t, s, 5, testJob("web"))
	webOther := testJob("web")
	webOther.Namespace = "other"
	webOther = mustUpsertJob(t, s, 6, webOther)

	a1 := testAlloc(web, "eval-1", "node-1")
	a1.ID = "abcd-1"
	a2 := testAlloc(web, "eval-2", "node-2")
	a2.ID = "abce-2"
	a3 := testAlloc(webOther, "eval-1", "node-1")
	a3.ID = "abcd-3"
	must.NoError(t, s.UpsertAllocs(10, []*structs.Allocation{a1, a2, a3}))

	ids := func(allocs []*structs.Allocation, err error) []string {
		t.Helper()
		must.NoError(t, err)
		var out []string
		for _, a := range allocs {
			out = append(out, a.ID)
		}
		return out
	}
	cases := []struct {
		name string
		got  []string
		want []string
	}{
		{"all", ids(s.Allocs(nil)), []string{"abcd-1", "abcd-3", "abce-2"}},
		{"by job", ids(s.AllocsByJob(nil, "default", "web")), []string{"abcd-1", "abce-2"}},
		{"by job in other", ids(s.AllocsByJob(nil, "other", "web")), []string{"abcd-3"}},
		{"by node", ids(s.AllocsByNode(nil, "node-1")), []string{"abcd-1", "abcd-3"}},
		{"by eval", ids(s.AllocsByEval(nil, "eval-2")), []string{"abce-2"}},
		{"by prefix", ids(s.AllocsByIDPrefix(nil, "default", "abc")), []string{"abcd-1", "abce-2"}},
		{"by prefix, all namespaces", ids(s.AllocsByIDPrefix(nil, AllNamespaces, "abcd")), []string{"abcd-1", "abcd-3"}},
		{"by unknown node", ids(s.AllocsByNode(nil, "node-9")), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			must.Eq(t, tc.want, tc.got)
		})
	}
}

// An evaluation's allocations are those of its job that name it; once the
// evaluation is gone they are still found.
func TestAllocsByEval(t *testing.T) {
	s := newStore(t)
	job := mustUpsertJob(t, s, 5, testJob("web"))
	other := mustUpsertJob(t, s, 6, testJob("api"))
	eval, later := testEval(job), testEval(job)
	must.NoError(t, s.UpsertEvals(7, []*structs.Evaluation{eval, later}))
	placed := []*structs.Allocation{testAlloc(job, eval.ID, "node-1"), testAlloc(job, eval.ID, "node-2")}
	slices.SortFunc(placed, func(a, b *structs.Allocation) int { return strings.Compare(a.ID, b.ID) })
	replaced := testAlloc(job, later.ID, "node-1")
	// Another job's allocation naming the evaluation is none of its own.
	stray := testAlloc(other, eval.ID, "node-1")
	must.NoError(t, s.UpsertAllocs(8, append([]*structs.Allocation{replaced, stray}, placed...)))

	ws := memdb.NewWatchSet()
	got, err := s.AllocsByEval(ws, eval.ID)
	must.NoError(t, err)
	must.Eq(t, []string{placed[0].ID, placed[1].ID}, allocIDs(got))

	// A new allocation of the job wakes a watcher of the evaluation's.
	must.NoError(t, s.UpsertAllocs(9, []*structs.Allocation{testAlloc(job, eval.ID, "node-3")}))
	must.False(t, ws.Watch(time.After(5*time.Second)), must.Sprint("the watch fired"))

	must.NoError(t, s.DeleteEvals(10, []string{eval.ID}, nil))
	got, err = s.AllocsByEval(nil, eval.ID)
	must.NoError(t, err)
	must.Len(t, 4, got, must.Sprint("a deleted evaluation's allocations, the stray one too, by a scan"))
}

func allocIDs(allocs []*structs.Allocation) []string {
	out := make([]string, len(allocs))
	for i, a := range allocs {
		out[i] = a.ID
	}
	return out
}
