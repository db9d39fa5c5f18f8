package nomad

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
)

// FuzzRPCConn sends arbitrary bytes to a real server's RPC port, the way a
// peer on the network can: raw (the connection-type byte and the
// handshake are the input's), or after a handshake as an anonymous peer
// (the Client endpoints) or as a server of the cluster (every endpoint,
// Raft.Apply included), the rest being JSON-RPC frames. The server must
// neither crash nor stop answering. Plain `go test` runs the seeds below
// and those in testdata/fuzz/FuzzRPCConn.
func FuzzRPCConn(f *testing.F) {
	const (
		modeRaw = iota
		modeAnonymous
		modeServer
		modes
	)
	seeds := []struct {
		mode byte
		data string
	}{
		{modeRaw, ""},
		{modeRaw, "\x02"},
		{modeRaw, "\x01"},
		{modeRaw, "\xff garbage"},
		{modeRaw, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"},
		{modeRaw, "\x02\x00" + string(make([]byte, 80))},
		{modeRaw, "\x02\x02" + string(make([]byte, 80))},
		{modeAnonymous, `{"method":"Client.Register","params":[{}],"id":1}`},
		{modeAnonymous, `{"method":"Client.Register","params":[{"Node":{"ID":"x","SecretID":"y"}}],"id":1}`},
		{modeAnonymous, `{"method":"Client.Heartbeat","params":[null],"id":1}{"method":"Job.Register","params":[{}],"id":2}`},
		{modeAnonymous, `{"method":"Denied.Call","params":[[]],"id":"x"}`},
		{modeAnonymous, `{"method":"Client.GetAllocs","params":[{"AllocIDs":["a","b"]}],"id":1}` + "\n[1,2,3]"},
		{modeServer, `{"method":"Status.Members","params":[{}],"id":1}`},
		{modeServer, `{"method":"Status.ReadIndex","params":[{}],"id":1}`},
		{modeServer, `{"method":"Job.Register","params":[{"Job":null}],"id":1}`},
		{modeServer, `{"method":"Job.Register","params":[{"Job":{"ID":"j","Name":"j","Type":"batch","Namespace":"default","Region":"global","Priority":50,"Datacenters":["dc1"],"NodePool":"default","TaskGroups":[{"Name":"g","Count":1000000000,"Tasks":[{"Name":"t","Driver":"raw_exec"}]}]}}],"id":1}`},
		{modeServer, `{"method":"Raft.Apply","params":[{"Type":1,"Entry":{"Job":null}}],"id":1}`},
		{modeServer, `{"method":"Raft.Apply","params":[{"Type":1,"Entry":{"Job":{"ID":"r","TaskGroups":[{"Name":"g","Count":1000000000}]}}}],"id":1}`},
		{modeServer, `{"method":"Raft.Apply","params":[{"Type":255,"Entry":[]}],"id":1}`},
		{modeServer, `{"method":"Eval.Upsert","params":[{"Evals":[null]}],"id":1}`},
		{modeServer, `{"method":"Node.UpdateDrain","params":[{}],"id":1}`},
		{modeServer, `{"method":"Alloc.UpdateFromClient","params":[{"Allocs":[{}]}],"id":1}`},
		{modeServer, `{"method":"Periodic.Force","params":[{"JobID":"nope"}],"id":1}`},
	}
	// No Status.Join seed: a join dials the addresses it is given, and
	// the fuzzer's mutations of them would reach beyond the loopback.
	for _, s := range seeds {
		f.Add(s.mode, []byte(s.data))
	}

	cfg := testConfig(f, "fuzz")
	// Not the test's log: the server logs from its own goroutines while
	// inputs run, where only t may log.
	cfg.Logger = hclog.NewNullLogger()
	srv := startServer(f, cfg)
	waitForLeader(f, srv)
	addr := srv.RPCAddr().String()
	dialers := map[byte]*nomadrpc.Dialer{
		modeAnonymous: {Creds: nomadrpc.Credentials{Role: nomadrpc.RoleAnonymous}},
		modeServer:    {Creds: nomadrpc.Credentials{Role: nomadrpc.RoleServer, Secret: testClusterKey}},
	}

	f.Fuzz(func(t *testing.T, mode byte, data []byte) {
		mode %= modes
		var conn net.Conn
		var err error
		if mode == modeRaw {
			conn, err = net.DialTimeout("tcp", addr, 5*time.Second)
		} else {
			conn, err = dialers[mode].Dial(addr, nomadrpc.ConnTypeRPC, 5*time.Second)
		}
		must.NoError(t, err, must.Sprint("the server must still accept and authenticate connections"))
		defer conn.Close()

		_ = conn.SetDeadline(time.Now().Add(time.Second))
		if _, err := conn.Write(data); err != nil {
			return // the server may close a connection it refuses
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		// The answers, until the server closes; a call that blocks
		// (a blocking query) is left to its deadline.
		_, _ = io.Copy(io.Discard, io.LimitReader(conn, 16<<20))
	})
}
