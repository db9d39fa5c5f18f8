package nomad

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/structs"
)

// The server keeps one copy of a job version however many allocations run
// it: in the raft entries that place them, in the state store, and in
// what it sends clients.

// TestPlanEntry_carriesTheJobOnce: a plan's raft entry holds the plan's
// job once and no job in any allocation: not in placements, in-place
// updates, stops, nor in annotations of failed allocations of an older
// version (the store keeps the job such an allocation ran).
func TestPlanEntry_carriesTheJobOnce(t *testing.T) {
	job := testJob("once")
	job.Namespace, job.Version, job.CreateIndex, job.JobModifyIndex = structs.DefaultNamespace, 2, 5, 9
	older := job.Copy()
	older.Version, older.JobModifyIndex = 1, 7
	statusCopy := *job // the same version, as a status update stores it

	placed := testAlloc(job, "node-1")
	placed.Job = nil
	inPlace := testAlloc(job, "node-1")
	inPlace.Job = &statusCopy
	failed := testAlloc(older, "node-2")
	failed.ClientStatus = structs.AllocClientStatusFailed
	failed.FollowupEvalID = "followup"
	plan := &structs.Plan{EvalID: "eval", Job: job}
	stopped := plan.AppendStoppedAlloc(testAlloc(older, "node-2"), "not needed", "")
	result := &structs.PlanResult{
		NodeAllocation: map[string][]*structs.Allocation{"node-1": {placed, inPlace}, "node-2": {failed}},
		NodeUpdate:     map[string][]*structs.Allocation{"node-2": {stopped}},
	}

	entry := planEntry(plan, result, time.Now().UnixNano())
	must.True(t, entry.Job == job)
	must.Len(t, 4, entry.Allocs)
	for _, a := range entry.Allocs {
		must.Nil(t, a.Job, must.Sprintf("allocation %s travels without a job", a.ID))
	}
	must.NotNil(t, inPlace.Job, must.Sprint("the plan's own allocations are left as they are"))
	data, err := logentry.Encode(logentry.MsgAllocUpdate, entry)
	must.NoError(t, err)
	must.Eq(t, 1, bytes.Count(data, []byte(`"TaskGroups"`)))
}

// TestAllocUpdateEntry_sharesTheStoredVersion: allocations applied with
// copies of a job version the store holds get the store's copy, and those
// of a version it does not hold share one copy per entry.
func TestAllocUpdateEntry_sharesTheStoredVersion(t *testing.T) {
	fsm := testFSM(t)
	mustApply(t, fsm, 3, &logentry.JobRegister{Job: testJob("web")})
	stored, err := fsm.State().JobByID(nil, structs.DefaultNamespace, "web")
	must.NoError(t, err)

	entry := &logentry.AllocUpdate{}
	for range 3 {
		a := testAlloc(stored.Copy(), "node-1")
		entry.Allocs = append(entry.Allocs, a)
	}
	gone := stored.Copy()
	gone.Version, gone.JobModifyIndex = 9, 2 // a version the store does not hold
	for range 2 {
		entry.Allocs = append(entry.Allocs, testAlloc(gone.Copy(), "node-1"))
	}
	mustApply(t, fsm, 4, entry)

	allocs, err := fsm.State().AllocsByJob(nil, structs.DefaultNamespace, "web")
	must.NoError(t, err)
	must.Len(t, 5, allocs)
	var other *structs.Job
	for _, a := range allocs {
		switch a.Job.Version {
		case stored.Version:
			must.True(t, a.Job == stored, must.Sprintf("%s shares the stored version", a.ID))
		default:
			if other == nil {
				other = a.Job
			}
			must.True(t, a.Job == other, must.Sprintf("%s shares the entry's one copy", a.ID))
		}
	}
}

// TestDecodeLogEntry_oldEntryWithInlineJobs replays a plan entry as older
// servers wrote some, with the job in every allocation
// (testdata/alloc_update_entry_with_inline_jobs.bin, written by commit
// ff5c91b's encodeLogEntry, now logentry.Encode: three allocations of job
// "inline", created at index 3): the allocations share the stored version.
func TestDecodeLogEntry_oldEntryWithInlineJobs(t *testing.T) {
	data, err := os.ReadFile("testdata/alloc_update_entry_with_inline_jobs.bin")
	must.NoError(t, err)
	must.Eq(t, 3, bytes.Count(data, []byte(`"TaskGroups"`)))

	fsm := testFSM(t)
	mustApply(t, fsm, 3, &logentry.JobRegister{Job: testJob("inline")})
	stored, err := fsm.State().JobByID(nil, structs.DefaultNamespace, "inline")
	must.NoError(t, err)
	must.Nil(t, fsm.Apply(&raft.Log{Index: 4, Term: 1, Type: raft.LogCommand, Data: data}))
	allocs, err := fsm.State().AllocsByJob(nil, structs.DefaultNamespace, "inline")
	must.NoError(t, err)
	must.Len(t, 3, allocs)
	for _, a := range allocs {
		must.True(t, a.Job == stored, must.Sprintf("%s shares the stored version", a.ID))
	}
}

// TestGetAllocs_sharedJobsOverRPC: a client that asks for shared jobs gets
// each version once and, attached, one copy of it for all the allocations
// that run it; one that does not ask gets every allocation with its job,
// as before.
func TestGetAllocs_sharedJobsOverRPC(t *testing.T) {
	s := startServer(t, testConfig(t, "s1"))
	waitForLeader(t, s)
	rpc := clientAgentRPC(t)
	ctx := testCtx(t)
	node := testNode(structs.GenerateUUID())
	var reg NodeUpdateResponse
	must.NoError(t, rpc.Call(ctx, s.RPCAddr().String(), "Client.Register", &NodeRegisterRequest{Node: node}, &reg))
	mustRegister(t, s, testJob("shared"))
	job, err := s.State().JobByID(nil, structs.DefaultNamespace, "shared")
	must.NoError(t, err)
	var ids []string
	for range 10 {
		ids = append(ids, placeTestAlloc(t, s, job, node.ID).ID)
	}
	request := func(sharedJobs bool) *AllocsGetRequest {
		return &AllocsGetRequest{AllocIDs: ids, NodeID: node.ID, SecretID: node.SecretID, SharedJobs: sharedJobs}
	}

	var shared AllocsGetResponse
	must.NoError(t, rpc.Call(ctx, s.RPCAddr().String(), "Client.GetAllocs", request(true), &shared))
	must.Len(t, 1, shared.Jobs)
	must.Eq(t, []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, shared.JobOf)
	for _, a := range shared.Allocs {
		must.Nil(t, a.Job)
	}
	must.NoError(t, shared.AttachJobs())
	must.Len(t, 10, shared.Allocs)
	for _, a := range shared.Allocs {
		must.True(t, a.Job == shared.Allocs[0].Job)
		must.Eq(t, "shared", a.Job.ID)
	}
	stored, err := s.State().AllocByID(nil, ids[0])
	must.NoError(t, err)
	must.NotNil(t, stored.Job, must.Sprint("the store's allocations keep their job"))

	var inline AllocsGetResponse
	must.NoError(t, rpc.Call(ctx, s.RPCAddr().String(), "Client.GetAllocs", request(false), &inline))
	must.SliceEmpty(t, inline.Jobs)
	for _, a := range inline.Allocs {
		must.NotNil(t, a.Job)
	}
	must.NoError(t, inline.AttachJobs())

	sharedSize, inlineSize := encodedSize(t, s, ids, true), encodedSize(t, s, ids, false)
	must.Less(t, inlineSize/2, sharedSize, must.Sprintf("shared %d bytes, inline %d", sharedSize, inlineSize))
}

func encodedSize(t *testing.T, s *Server, ids []string, sharedJobs bool) int {
	t.Helper()
	resp, err := s.GetAllocsByID(testCtx(t), ids)
	must.NoError(t, err)
	if sharedJobs {
		resp = resp.withSharedJobs()
	}
	data, err := json.Marshal(resp)
	must.NoError(t, err)
	return len(data)
}

// TestAttachJobs_refusesBadPositions: a response whose job positions do not
// fit its jobs is an error, not a panic.
func TestAttachJobs_refusesBadPositions(t *testing.T) {
	one := []*structs.Allocation{{ID: "a"}}
	for _, resp := range []*AllocsGetResponse{
		{Allocs: one, JobOf: []int{0}},
		{Allocs: one, Jobs: []*structs.Job{{ID: "j"}}, JobOf: []int{-2}},
		{Allocs: one, Jobs: []*structs.Job{{ID: "j"}}, JobOf: []int{0, 0}},
	} {
		must.Error(t, resp.AttachJobs())
	}
}
