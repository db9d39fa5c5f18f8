package nomad

import (
	"crypto/tls"
	"net"
	"net/rpc/jsonrpc"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/tlsutil"
	"github.com/drover-io/drover/internal/tlsutil/tlstest"
	"github.com/drover-io/drover/internal/waitfor"
	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/structs"
)

// testPKI is a CA and a certificate of each kind a test presents.
type testPKI struct {
	ca                        *tlstest.CA
	server, client, cli, euro *tlsutil.Material
}

func newTestPKI(t *testing.T) *testPKI {
	ca := tlstest.NewCA(t)
	return &testPKI{
		ca:     ca,
		server: tlstest.Material(t, ca.Files(t, "server", tlsutil.RoleServer, "global")),
		client: tlstest.Material(t, ca.Files(t, "client", tlsutil.RoleClient, "global")),
		cli:    tlstest.Material(t, ca.Files(t, "cli", tlsutil.RoleCLI, "global")),
		euro:   tlstest.Material(t, ca.Files(t, "server-eu", tlsutil.RoleServer, "eu")),
	}
}

// withTLS makes a server take mutual TLS only, with the server
// certificate and no cluster key.
func (p *testPKI) withTLS(cfg *Config) {
	cfg.ClusterKey = nil
	cfg.TLS = &nomadrpc.TLS{Material: p.server, VerifyServerHostname: true}
}

// tlsDialer dials with m's certificate, checking that the server's names
// the server role when verify is set.
func tlsDialer(m *tlsutil.Material, verify bool) *nomadrpc.Dialer {
	return &nomadrpc.Dialer{TLS: (&nomadrpc.TLS{Material: m, VerifyServerHostname: verify}).DialConfig("global")}
}

func TestRPCTLS_ClusterFormsWithoutAKey(t *testing.T) {
	pki := newTestPKI(t)
	c := startCluster(t, pki.withTLS)
	leader := c.waitForOneLeader(c.servers)
	for _, s := range c.servers {
		waitfor.True(t, "three peers", func() bool { return len(s.Peers()) == 3 })
	}
	f := follower(c.servers)
	mustRegister(t, f, testJob("over-tls"))
	c.waitForJob(c.servers, "over-tls")

	// A client agent with a client certificate registers a new node
	// through a follower, and then works as a node: its certificate is
	// what the registration secret is without TLS.
	agent := NewRPCClient(RPCClientConfig{DialTimeout: time.Second, Region: "global",
		TLS: &nomadrpc.TLS{Material: pki.client, VerifyServerHostname: true}})
	t.Cleanup(agent.Close)
	node := testNode(structs.GenerateUUID())
	var reg NodeUpdateResponse
	must.NoError(t, agent.Call(testCtx(t), f.RPCAdvertise(), "Client.Register", &NodeRegisterRequest{Node: node}, &reg))
	var hb NodeHeartbeatResponse
	must.NoError(t, agent.Call(testCtx(t), f.RPCAdvertise(), "Client.Heartbeat",
		&NodeHeartbeatRequest{NodeID: node.ID, SecretID: node.SecretID}, &hb))
	must.Positive(t, hb.HeartbeatTTL)
	stored, err := leader.State().NodeByID(nil, node.ID)
	must.NoError(t, err)
	must.NotNil(t, stored)

	// The client certificate is no server's.
	var join JoinResponse
	err = agent.Call(testCtx(t), leader.RPCAdvertise(), "Status.Join", &JoinRequest{ID: "rogue", RPCAddr: "127.0.0.1:1"}, &join)
	must.ErrorIs(t, err, ErrPermissionDenied)
	must.Len(t, 3, leader.Peers())
}

func TestRPCTLS_Refusals(t *testing.T) {
	pki := newTestPKI(t)
	cfg := testConfig(t, "tls")
	pki.withTLS(cfg)
	s := startServer(t, cfg)
	waitForLeader(t, s)
	addr := s.RPCAdvertise()
	other := tlstest.NewCA(t)

	cases := []struct {
		name   string
		dialer *nomadrpc.Dialer
		kind   byte
		want   string
	}{
		{"plaintext with the cluster key", &nomadrpc.Dialer{Creds: nomadrpc.Credentials{Role: nomadrpc.RoleServer, Secret: testClusterKey}}, nomadrpc.ConnTypeRaft, "takes TLS connections only"},
		{"plaintext anonymous", &nomadrpc.Dialer{Creds: nomadrpc.Credentials{Role: nomadrpc.RoleAnonymous}}, nomadrpc.ConnTypeRPC, "takes TLS connections only"},
		{"no client certificate", &nomadrpc.Dialer{TLS: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}}, nomadrpc.ConnTypeRPC, "certificate required"},
		{"a client certificate opening raft", tlsDialer(pki.client, true), nomadrpc.ConnTypeRaft, "only a server's certificate"},
		{"a CLI certificate", tlsDialer(pki.cli, true), nomadrpc.ConnTypeRPC, "names no role"},
		{"a server of another region", tlsDialer(pki.euro, false), nomadrpc.ConnTypeRaft, "names no role"},
		{"another CA's server", tlsDialer(tlstest.Material(t, other.Files(t, "server", tlsutil.RoleServer, "global")), false), nomadrpc.ConnTypeRaft, "certificate"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := tc.dialer.Dial(addr, tc.kind, leaderWait)
			if err == nil {
				conn.Close()
			}
			must.Error(t, err)
			must.ErrorContains(t, err, tc.want)
			must.True(t, nomadrpc.RefusedCredentials(err), must.Sprintf("%v reads as a refusal, not a server that is down", err))
		})
	}

	// The same server takes a server certificate, and a client's for
	// the Client endpoint only.
	conn, err := tlsDialer(pki.server, true).Dial(addr, nomadrpc.ConnTypeRaft, leaderWait)
	must.NoError(t, err)
	conn.Close()
	conn, err = tlsDialer(pki.client, true).Dial(addr, nomadrpc.ConnTypeRPC, leaderWait)
	must.NoError(t, err)
	c := jsonrpc.NewClient(conn)
	defer c.Close()
	job := testJob("kept")
	mustRegister(t, s, job)
	var resp JobDeregisterResponse
	mustBeDenied(t, c, "Job.Deregister", &JobDeregisterRequest{Namespace: job.Namespace, JobID: job.ID, Purge: true}, &resp)
	stored, err := s.State().JobByID(nil, job.Namespace, job.ID)
	must.NoError(t, err)
	must.NotNil(t, stored)
}

// A client that verifies the server's hostname does not talk to a rogue
// server holding only a client certificate; one that does not, does, as
// Nomad's.
func TestRPCTLS_VerifyServerHostname(t *testing.T) {
	pki := newTestPKI(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	rogue := (&nomadrpc.TLS{Material: pki.client}).AcceptConfig()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				var kind [1]byte
				if _, err := conn.Read(kind[:]); err != nil {
					return
				}
				if c, _, _, err := nomadrpc.AcceptTLS(conn, rogue, "global", time.Now().Add(leaderWait)); err == nil {
					c.Close()
				}
			}()
		}
	}()
	_, err = tlsDialer(pki.client, true).Dial(ln.Addr().String(), nomadrpc.ConnTypeRPC, leaderWait)
	must.ErrorContains(t, err, "names none of server.global.nomad")
	conn, err := tlsDialer(pki.client, false).Dial(ln.Addr().String(), nomadrpc.ConnTypeRPC, leaderWait)
	must.NoError(t, err)
	conn.Close()
}
