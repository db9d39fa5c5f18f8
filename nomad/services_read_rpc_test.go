package nomad

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// A task's workload identity reads the services of its own namespace, as
// its templates do, and of no other; over RPC too.
func TestServices_workloadIdentityReads(t *testing.T) {
	s, mgmt := aclServer(t)
	waitForRootKey(t, s)
	admin := callerCtx(t, s, mgmt.SecretID)
	node := testNode(structs.GenerateUUID())
	_, err := s.NodeRegister(admin, node)
	must.NoError(t, err)
	mustRegister(t, s, testJob("svc"))
	job, err := s.State().JobByID(nil, structs.DefaultNamespace, "svc")
	must.NoError(t, err)
	alloc := placeTestAlloc(t, s, job, node.ID)
	_, err = s.UpsertServiceRegistrations(admin, &ServiceRegistrationUpsertRequest{
		Services: []*structs.ServiceRegistration{testRegistration(alloc, "web", 8080), testRegistration(alloc, "db", 5432)},
		NodeID:   node.ID, SecretID: node.SecretID,
	})
	must.NoError(t, err)
	signed, err := s.SignIdentities(admin, &IdentitySignRequest{NodeID: node.ID, AllocID: alloc.ID, Tasks: []string{"task"}})
	must.NoError(t, err)
	jwt := signed.Identities[0].JWT

	ctx, err := s.WithCallerOf(t.Context(), jwt)
	must.NoError(t, err)
	resp, err := s.ReadServices(ctx, &structs.ServicesReadRequest{ServiceName: "web"})
	must.NoError(t, err)
	must.Len(t, 1, resp.Services)
	must.Eq(t, 8080, resp.Services[0].Port)
	must.Positive(t, resp.Index)
	resp, err = s.ReadServices(ctx, &structs.ServicesReadRequest{})
	must.NoError(t, err)
	must.Len(t, 2, resp.Services)
	_, err = s.ReadServices(ctx, &structs.ServicesReadRequest{Namespace: "other"})
	must.ErrorIs(t, err, ErrPermissionDenied)

	anon, err := s.WithCallerOf(t.Context(), "")
	must.NoError(t, err)
	_, err = s.ReadServices(anon, &structs.ServicesReadRequest{})
	must.ErrorIs(t, err, ErrPermissionDenied)

	c := clientAgentRPC(t)
	var reply structs.ServicesReadResponse
	must.NoError(t, c.Call(t.Context(), s.RPCAddr().String(), "Service.Read", &structs.ServicesReadRequest{
		ServiceName: "db", QueryOptions: structs.QueryOptions{AuthToken: jwt},
	}, &reply))
	must.Len(t, 1, reply.Services)
	must.Eq(t, 5432, reply.Services[0].Port)
}
