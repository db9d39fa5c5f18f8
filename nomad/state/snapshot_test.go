package state

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/drover-io/drover/structs"
	"github.com/shoenig/test/must"
)

// populate writes something to every table.
func populate(t *testing.T, s *StateStore) {
	t.Helper()
	must.NoError(t, s.UpsertNamespaces(9, []*structs.Namespace{{Name: "other", Description: "more"}}))
	mustUpsertJob(t, s, 10, testJob("example"))
	changed := testJob("example")
	changed.Priority = 70
	job := mustUpsertJob(t, s, 11, changed)
	other := testJob("example")
	other.Namespace = "other"
	mustUpsertJob(t, s, 12, other)

	eval := testEval(job)
	eval.QueuedAllocations = map[string]int{"web": 0}
	eval.WaitUntil = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	must.NoError(t, s.UpsertEvals(13, []*structs.Evaluation{eval}))

	alloc := testAlloc(job, eval.ID, "node-1")
	must.NoError(t, s.UpsertAllocs(14, []*structs.Allocation{alloc, testAlloc(job, eval.ID, "node-1")}))
	must.NoError(t, s.UpdateAllocsFromClient(15, []*structs.Allocation{{
		ID:           alloc.ID,
		ClientStatus: structs.AllocClientStatusRunning,
		TaskStates: map[string]*structs.TaskState{"sleep": {
			State:     structs.TaskStateRunning,
			StartedAt: time.Date(2025, 6, 1, 12, 0, 1, 0, time.UTC),
			Events:    []*structs.TaskEvent{{Type: "Started", Time: 1_700_000_000_000_000_001, Details: map[string]string{"k": "v"}}},
		}},
	}}))

	node := testNode("node-1")
	node.NodeResources = &structs.NodeResources{Memory: structs.NodeMemoryResources{MemoryMB: 1024}}
	must.NoError(t, s.UpsertNode(16, node))
	must.NoError(t, s.UpsertPeriodicLaunch(17, &PeriodicLaunch{
		ID: "example", Namespace: "default", Launch: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC),
	}))
	must.NoError(t, s.UpsertACLPolicies(18, []*structs.ACLPolicy{{Name: "readonly", Rules: `node { policy = "read" }`}}))
	must.NoError(t, s.BootstrapACLToken(19, 0, testToken(structs.ACLTokenTypeManagement)))
	reader := testToken(structs.ACLTokenTypeClient)
	reader.Policies = []string{"readonly"}
	must.NoError(t, s.UpsertACLTokens(20, []*structs.ACLToken{reader}))
}

// contents reads every table through the read methods.
type contents struct {
	Jobs     []*structs.Job
	Versions [][]*structs.Job
	Evals    []*structs.Evaluation
	Allocs   []*structs.Allocation
	Nodes    []*structs.Node
	Launches []*PeriodicLaunch
	Policies []*structs.ACLPolicy
	Tokens   []*structs.ACLToken
	NSes     []*structs.Namespace
	Indexes  map[string]uint64
}

func readContents(t *testing.T, r *reader) contents {
	t.Helper()
	var c contents
	var err error
	c.Jobs, err = r.Jobs(nil)
	must.NoError(t, err)
	for _, job := range c.Jobs {
		versions, err := r.JobVersionsByID(nil, job.Namespace, job.ID)
		must.NoError(t, err)
		c.Versions = append(c.Versions, versions)
	}
	c.Evals, err = r.Evals(nil)
	must.NoError(t, err)
	c.Allocs, err = r.Allocs(nil)
	must.NoError(t, err)
	c.Nodes, err = r.Nodes(nil)
	must.NoError(t, err)
	c.Launches, err = r.PeriodicLaunches(nil)
	must.NoError(t, err)
	c.Policies, err = r.ACLPoliciesByNamePrefix(nil, "")
	must.NoError(t, err)
	c.Tokens, err = r.ACLTokensByAccessorPrefix(nil, "")
	must.NoError(t, err)
	c.NSes, err = r.NamespacesByNamePrefix(nil, "")
	must.NoError(t, err)
	c.Indexes = map[string]uint64{}
	for _, table := range []string{TableJobs, TableJobVersions, TableEvals, TableAllocs, TableNodes, TablePeriodicLaunch,
		TableACLPolicies, TableACLTokens, TableNamespaces, bootstrapKey} {
		c.Indexes[table], err = r.Index(table)
		must.NoError(t, err)
	}
	return c
}

func TestSnapshot_PersistRestoreRoundTrip(t *testing.T) {
	s := newStore(t)
	populate(t, s)
	snap, err := s.Snapshot()
	must.NoError(t, err)
	want := readContents(t, &snap.reader)

	// Writes after the snapshot are not part of it.
	must.NoError(t, s.UpsertNode(30, testNode("node-late")))
	must.NoError(t, s.DeleteJob(31, "other", "example"))
	must.Eq(t, want, readContents(t, &snap.reader))

	var buf bytes.Buffer
	must.NoError(t, snap.Persist(&buf))
	restored, err := Restore(&buf)
	must.NoError(t, err)
	got := readContents(t, &restored.reader)

	must.Eq(t, want, got)
	must.Len(t, 2, got.Jobs)
	must.Len(t, 2, got.Versions[0])
	must.Len(t, 2, got.Allocs)
	must.Len(t, 2, got.Tokens)
	must.Len(t, 1, got.Policies)
	must.Len(t, 2, got.NSes)
	must.Eq(t, 19, got.Indexes[bootstrapKey])
	must.Eq[any](t, float64(0), got.Jobs[0].TaskGroups[0].Tasks[0].Config["exit_code"])
	latest, err := restored.LatestIndex()
	must.NoError(t, err)
	must.Eq(t, 20, latest)

	// The restored store carries on where the old one stopped.
	next := testJob("example")
	next.Priority = 71
	job := mustUpsertJob(t, restored, 40, next)
	must.Eq(t, 2, job.Version)
	must.Eq(t, 10, job.CreateIndex)
}

func TestSnapshot_PersistFormat(t *testing.T) {
	s := newStore(t)
	must.NoError(t, s.UpsertNode(5, testNode("node-1")))
	snap, err := s.Snapshot()
	must.NoError(t, err)
	var buf bytes.Buffer
	must.NoError(t, snap.Persist(&buf))

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	must.Len(t, 4, lines)
	must.Eq(t, `{"Type":"header","Value":{"Version":2}}`, lines[0])
	must.StrHasPrefix(t, `{"Type":"node","Value":{"ID":"node-1",`, lines[1])
	must.Eq(t, `{"Type":"namespace","Value":{"Name":"default","Description":"Default shared namespace","CreateIndex":1,"ModifyIndex":1}}`, lines[2])
	must.Eq(t, `{"Type":"index","Value":{"Key":"nodes","Value":5}}`, lines[3])
}

func TestRestore_BadStreams(t *testing.T) {
	cases := []struct {
		name, stream, want string
	}{
		{"empty", "", "read header: EOF"},
		{"no header", `{"Type":"node","Value":{"ID":"n"}}`, `stream starts with a "node" record, not a header`},
		{"newer format", `{"Type":"header","Value":{"Version":3}}`, "unsupported format version 3"},
		{"alloc of a job version not in the stream", `{"Type":"header","Value":{"Version":2}}
{"Type":"alloc","Value":{"ID":"a1","Namespace":"default","JobID":"web"},"Job":{"Namespace":"default","ID":"web","Version":3,"CreateIndex":1,"JobModifyIndex":9}}`,
			`allocation "a1" runs version 3 of job "web" (namespace "default", job modify index 9), which the stream does not hold`},
		{"unknown record", `{"Type":"header","Value":{"Version":1}}
{"Type":"volume","Value":{}}`, `record 1 (volume): unknown record type`},
		{"bad value", `{"Type":"header","Value":{"Version":1}}
{"Type":"job","Value":{"ID":7}}`, "record 1 (job): decode"},
		{"missing ID", `{"Type":"header","Value":{"Version":1}}
{"Type":"node","Value":{"Name":"n"}}`, "record 1 (node): insert into nodes"},
		{"truncated", `{"Type":"header","Value":{"Version":1}}
{"Type":"node","Val`, "read record 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Restore(strings.NewReader(tc.stream))
			must.ErrorContains(t, err, tc.want)
			must.ErrorContains(t, err, "restore state")
		})
	}
}
