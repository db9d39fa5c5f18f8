package nomad

import (
	"bytes"
	"net"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/acl"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/structs"
)

// aclObjects writes a namespace, a policy and a client token to s.
func aclObjects(t *testing.T, s *Server) *structs.ACLToken {
	t.Helper()
	_, err := s.UpsertNamespaces(testCtx(t), &NamespaceUpsertRequest{Namespaces: []*structs.Namespace{{Name: "team", Description: "kept"}}})
	must.NoError(t, err)
	return clientToken(t, s, "team-write", `namespace "team" { policy = "write" }`)
}

// checkACLObjects checks that s holds what aclObjects and the bootstrap
// wrote, and that the tokens still work.
func checkACLObjects(t *testing.T, s *Server, mgmt, client *structs.ACLToken) {
	t.Helper()
	st := s.State()
	ns, err := st.NamespaceByName(nil, "team")
	must.NoError(t, err)
	must.NotNil(t, ns)
	must.Eq(t, "kept", ns.Description)
	p, err := st.ACLPolicyByName(nil, "team-write")
	must.NoError(t, err)
	must.NotNil(t, p)
	_, done, err := st.ACLBootstrapIndex()
	must.NoError(t, err)
	must.True(t, done, must.Sprint("the bootstrap is remembered"))

	a, _, err := s.ResolveToken(testCtx(t), mgmt.SecretID)
	must.NoError(t, err)
	must.True(t, a.IsManagement())
	a, tok, err := s.ResolveToken(testCtx(t), client.SecretID)
	must.NoError(t, err)
	must.Eq(t, client.AccessorID, tok.AccessorID)
	must.True(t, a.AllowNamespaceOperation("team", acl.CapSubmitJob))
	must.False(t, a.AllowNamespaceOperation("default", acl.CapSubmitJob))
	_, err = s.BootstrapACL(testCtx(t), &ACLBootstrapRequest{})
	must.ErrorContains(t, err, "already done")
}

func TestACL_survivesRestart(t *testing.T) {
	for _, snapshotFirst := range []bool{false, true} {
		name := "log only"
		if snapshotFirst {
			name = "after raft snapshot"
		}
		t.Run(name, func(t *testing.T) {
			cfg := aclConfig(t, "durable")
			cfg.DataDir = t.TempDir()
			cfg.DevMode = false
			s, err := NewServer(cfg)
			must.NoError(t, err)
			waitForLeader(t, s)
			boot, err := s.BootstrapACL(testCtx(t), &ACLBootstrapRequest{})
			must.NoError(t, err)
			client := aclObjects(t, s)
			if snapshotFirst {
				must.NoError(t, s.Raft().Snapshot().Error())
			}
			last, err := s.State().LatestIndex()
			must.NoError(t, err)
			must.NoError(t, s.Shutdown())

			cfg2 := aclConfig(t, "durable")
			cfg2.DataDir = cfg.DataDir
			cfg2.DevMode = false
			cfg2.RPCAddr = s.RPCAddr().(*net.TCPAddr)
			s2 := startServer(t, cfg2)
			waitForLeader(t, s2)
			waitfor.True(t, "state to be restored", func() bool {
				latest, err := s2.State().LatestIndex()
				return err == nil && latest >= last
			})
			checkACLObjects(t, s2, boot.Token, client)
		})
	}
}

func TestACL_survivesSnapshotRestore(t *testing.T) {
	src, _ := aclServer(t)
	boot, err := src.State().ACLTokensByAccessorPrefix(nil, "")
	must.NoError(t, err)
	must.Len(t, 1, boot)
	mgmt := boot[0]
	client := aclObjects(t, src)
	var archive bytes.Buffer
	_, err = src.SnapshotSave(&archive)
	must.NoError(t, err)

	dst := startServer(t, aclConfig(t, "destination"))
	waitForLeader(t, dst)
	_, _, err = dst.SnapshotRestore(testCtx(t), &archive)
	must.NoError(t, err)
	checkACLObjects(t, dst, mgmt, client)
}
