package nomad

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/structs"
)

func TestNamespaces_jobsNeedTheirNamespace(t *testing.T) {
	s := startServer(t, unscheduledConfig(t, "ns"))
	waitForLeader(t, s)
	ctx := testCtx(t)

	job := testJob("web")
	job.Namespace = "team"
	_, err := s.RegisterJob(ctx, &JobRegisterRequest{Job: job})
	must.ErrorIs(t, err, ErrInvalidRequest)
	must.ErrorContains(t, err, `namespace "team" does not exist`)
	_, err = s.PlanJob(ctx, &JobPlanRequest{Job: job})
	must.ErrorContains(t, err, `namespace "team" does not exist`)

	_, err = s.UpsertNamespaces(ctx, &NamespaceUpsertRequest{Namespaces: []*structs.Namespace{{Name: "team", Description: "the team"}}})
	must.NoError(t, err)
	mustRegister(t, s, job)

	// A namespace with a job stays.
	_, err = s.DeleteNamespaces(ctx, &NamespaceDeleteRequest{Names: []string{"team"}})
	must.ErrorIs(t, err, ErrInvalidRequest)
	must.ErrorContains(t, err, "namespace has jobs")
	ns, _, err := s.GetNamespace(ctx, "team", QueryOptions{})
	must.NoError(t, err)
	must.Eq(t, "the team", ns.Description)

	_, err = s.DeregisterJob(ctx, &JobDeregisterRequest{Namespace: "team", JobID: "web", Purge: true})
	must.NoError(t, err)
	_, err = s.DeleteNamespaces(ctx, &NamespaceDeleteRequest{Names: []string{"team"}})
	must.NoError(t, err)

	_, err = s.DeleteNamespaces(ctx, &NamespaceDeleteRequest{Names: []string{"default"}})
	must.ErrorContains(t, err, "the default namespace cannot be deleted")
	_, err = s.DeleteNamespaces(ctx, &NamespaceDeleteRequest{Names: []string{"team"}})
	must.ErrorIs(t, err, ErrNotFound)
	_, err = s.UpsertNamespaces(ctx, &NamespaceUpsertRequest{Namespaces: []*structs.Namespace{{Name: "bad name"}}})
	must.ErrorIs(t, err, ErrInvalidRequest)
}

func TestNamespaces_taskDriverCapabilities(t *testing.T) {
	s := startServer(t, unscheduledConfig(t, "ns"))
	waitForLeader(t, s)
	ctx := testCtx(t)
	_, err := s.UpsertNamespaces(ctx, &NamespaceUpsertRequest{Namespaces: []*structs.Namespace{{
		Name: "sandbox", Capabilities: &structs.NamespaceCapabilities{DisabledTaskDrivers: []string{"raw_exec"}},
	}}})
	must.NoError(t, err)
	job := testJob("raw")
	job.Namespace = "sandbox"
	_, err = s.RegisterJob(ctx, &JobRegisterRequest{Job: job})
	must.ErrorContains(t, err, `namespace "sandbox" does not allow the raw_exec task driver`)
	job.TaskGroups[0].Tasks[0].Driver = "mock_driver"
	job.TaskGroups[0].Tasks[0].Config = map[string]any{"run_for": "1s"}
	mustRegister(t, s, job)
}

func TestListNamespaces_filteredByACL(t *testing.T) {
	s := startServer(t, unscheduledConfig(t, "ns"))
	waitForLeader(t, s)
	ctx := testCtx(t)
	_, err := s.UpsertNamespaces(ctx, &NamespaceUpsertRequest{Namespaces: []*structs.Namespace{{Name: "team-a"}, {Name: "team-b"}}})
	must.NoError(t, err)
	rules, err := acl.Parse(`namespace "team-*" { policy = "read" }
namespace "team-b" { policy = "deny" }`)
	must.NoError(t, err)
	got, _, err := s.ListNamespaces(ctx, QueryOptions{ACL: acl.New(rules)})
	must.NoError(t, err)
	must.Len(t, 1, got)
	must.Eq(t, "team-a", got[0].Name)
	all, _, err := s.ListNamespaces(ctx, QueryOptions{ACL: acl.Management()})
	must.NoError(t, err)
	must.Len(t, 3, all)
}

func TestListReads_filteredAcrossNamespaces(t *testing.T) {
	s := startServer(t, unscheduledConfig(t, "ns"))
	waitForLeader(t, s)
	ctx := testCtx(t)
	_, err := s.UpsertNamespaces(ctx, &NamespaceUpsertRequest{Namespaces: []*structs.Namespace{{Name: "secret"}}})
	must.NoError(t, err)
	open := testJob("open")
	hidden := testJob("hidden")
	hidden.Namespace = "secret"
	mustRegister(t, s, open)
	mustRegister(t, s, hidden)
	node := testNode(structs.GenerateUUID())
	_, err = s.NodeRegister(ctx, node)
	must.NoError(t, err)
	for _, j := range []*structs.Job{open, hidden} {
		stored, err := s.State().JobByID(nil, j.Namespace, j.ID)
		must.NoError(t, err)
		placeTestAlloc(t, s, stored, node.ID)
	}

	rules, err := acl.Parse(`namespace "default" { policy = "read" }`)
	must.NoError(t, err)
	q := QueryOptions{Namespace: AllNamespaces, ACL: acl.New(rules)}
	jobs, _, err := s.ListJobs(ctx, q)
	must.NoError(t, err)
	must.Eq(t, []string{"open"}, jobIDsOf(jobs))
	allocs, _, err := s.ListAllocs(ctx, q)
	must.NoError(t, err)
	must.Len(t, 1, allocs)
	must.Eq(t, "default", allocs[0].Namespace)
	onNode, _, err := s.NodeAllocations(ctx, node.ID, q)
	must.NoError(t, err)
	must.Len(t, 1, onNode)
	evals, _, err := s.ListEvals(ctx, q)
	must.NoError(t, err)
	for _, e := range evals {
		must.Eq(t, "default", e.Namespace)
	}
	none, _, err := s.ListJobs(ctx, QueryOptions{Namespace: AllNamespaces})
	must.NoError(t, err)
	must.Len(t, 0, none, must.Sprint("a read without an ACL sees nothing"))
}

func jobIDsOf(entries []JobListEntry) []string {
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.Job.ID
	}
	return ids
}
