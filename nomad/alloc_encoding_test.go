package nomad

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/structs"
)

// An allocation's max_run_duration deadline is derived (CreateTime plus its
// group's limit) and added to responses by the HTTP layer. Raft entries
// and snapshots hold only what is stored; an older Drover wrote the
// deadline into both, and what it wrote still loads.

// oldDeadline is the deadline of the allocation in the testdata files,
// written by the commit before the deadline left the model's encoding.
var oldDeadline = time.Date(2025, 1, 2, 3, 4, 15, 0, time.UTC)

// maxRunAlloc is a placed allocation whose group has a max_run_duration.
func maxRunAlloc(t *testing.T) *structs.Allocation {
	t.Helper()
	job := testJob("maxrun")
	job.TaskGroups[0].MaxRunDuration = new(10 * time.Second)
	alloc := testAlloc(job, "node-1")
	_, ok := alloc.MaxRunDeadline()
	must.True(t, ok, must.Sprint("the allocation must have a deadline for the test to mean anything"))
	return alloc
}

func TestLogEntry_allocHoldsNoMaxRunDeadline(t *testing.T) {
	alloc := maxRunAlloc(t)
	for _, entry := range []logentry.Entry{
		&logentry.AllocUpdate{Allocs: []*structs.Allocation{alloc}},
		&logentry.AllocClientUpdate{Allocs: []*structs.Allocation{alloc}},
	} {
		data, err := logentry.Encode(entry.MessageType(), entry)
		must.NoError(t, err)
		must.StrContains(t, string(data), `"CreateTime"`)
		must.StrNotContains(t, string(data), "MaxRunDeadline", must.Sprint(entry.MessageType()))
	}
}

func TestFSMSnapshot_allocHoldsNoMaxRunDeadline(t *testing.T) {
	fsm := testFSM(t)
	alloc := maxRunAlloc(t)
	mustApply(t, fsm, 1, &logentry.AllocUpdate{Allocs: []*structs.Allocation{alloc}})

	snap, err := fsm.Snapshot()
	must.NoError(t, err)
	defer snap.Release()
	sink := &memorySink{}
	must.NoError(t, snap.Persist(sink))
	must.StrContains(t, sink.String(), alloc.ID)
	must.StrNotContains(t, sink.String(), "MaxRunDeadline")
}

// TestDecodeLogEntry_oldEntryWithMaxRunDeadline replays a raft entry as the
// previous version wrote it, deadline included: it decodes, applies, and
// the deadline derived from it is the one that was written.
func TestDecodeLogEntry_oldEntryWithMaxRunDeadline(t *testing.T) {
	data, err := os.ReadFile("testdata/alloc_update_entry_with_max_run_deadline.bin")
	must.NoError(t, err)
	must.True(t, bytes.Contains(data, []byte(`"MaxRunDeadline":1735787055000000000`)))

	typ, entry, err := logentry.Decode(data)
	must.NoError(t, err)
	must.Eq(t, logentry.MsgAllocUpdate, typ)
	alloc := entry.(*logentry.AllocUpdate).Allocs[0]
	deadline, ok := alloc.MaxRunDeadline()
	must.True(t, ok)
	must.Eq(t, oldDeadline.UnixNano(), deadline.UnixNano())

	fsm := testFSM(t)
	must.Nil(t, fsm.Apply(&raft.Log{Index: 7, Term: 1, Type: raft.LogCommand, Data: data}))
	stored, err := fsm.State().AllocByID(nil, alloc.ID)
	must.NoError(t, err)
	must.NotNil(t, stored)
	must.Eq(t, structs.AllocClientStatusRunning, stored.ClientStatus)
	deadline, ok = stored.MaxRunDeadline()
	must.True(t, ok)
	must.Eq(t, oldDeadline.UnixNano(), deadline.UnixNano())
}
