package rpc

import (
	"io"
	"net"
	"net/rpc"
	"testing"
	"time"

	"github.com/hashicorp/raft"
	"github.com/shoenig/test/must"
)

// BenchmarkRecordConn measures what sealing a connection's traffic in
// records costs, against the same traffic in the clear (what followed the
// handshake before records), over loopback TCP: a raft append of 64
// entries of 1 KiB, an RPC round trip of the JSON codec, and a transfer
// the size of a snapshot.
//
//	go test ./nomad/rpc -run '^$' -bench BenchmarkRecordConn -benchtime 2s
func BenchmarkRecordConn(b *testing.B) {
	for _, mode := range []struct {
		name string
		seal bool
	}{{"plain", false}, {"sealed", true}} {
		b.Run("raft-append-64x1KiB/"+mode.name, func(b *testing.B) { benchRaftAppend(b, mode.seal) })
		b.Run("rpc-round-trip/"+mode.name, func(b *testing.B) { benchRPCRoundTrip(b, mode.seal) })
		b.Run("transfer-64MiB/"+mode.name, func(b *testing.B) { benchTransfer(b, mode.seal) })
	}
}

// benchStream is a raft stream layer over loopback TCP whose connections
// are sealed, or not.
type benchStream struct {
	net.Listener
	seal bool
}

func (s benchStream) Accept() (net.Conn, error) {
	conn, err := s.Listener.Accept()
	if err != nil || !s.seal {
		return conn, err
	}
	return sealConn(conn, testRecvKey, testSendKey)
}

func (s benchStream) Dial(addr raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	conn, err := net.DialTimeout("tcp", string(addr), timeout)
	if err != nil || !s.seal {
		return conn, err
	}
	return sealConn(conn, testSendKey, testRecvKey)
}

// benchPair is a connection over loopback TCP, sealed or not at both ends.
func benchPair(b *testing.B, seal bool) (dialer, acceptor net.Conn) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must.NoError(b, err)
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		conn, _ := ln.Accept()
		accepted <- conn
	}()
	dialer, err = net.Dial("tcp", ln.Addr().String())
	must.NoError(b, err)
	acceptor = <-accepted
	b.Cleanup(func() { dialer.Close(); acceptor.Close() })
	if !seal {
		return dialer, acceptor
	}
	d, err := sealConn(dialer, testSendKey, testRecvKey)
	must.NoError(b, err)
	a, err := sealConn(acceptor, testRecvKey, testSendKey)
	must.NoError(b, err)
	return d, a
}

func benchRaftAppend(b *testing.B, seal bool) {
	newTransport := func() *raft.NetworkTransport {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		must.NoError(b, err)
		t := raft.NewNetworkTransport(benchStream{ln, seal}, 1, 10*time.Second, io.Discard)
		b.Cleanup(func() { t.Close() })
		return t
	}
	follower, leader := newTransport(), newTransport()
	go func() {
		for rpc := range follower.Consumer() {
			rpc.Respond(&raft.AppendEntriesResponse{Success: true}, nil)
		}
	}()
	entries := make([]*raft.Log, 64)
	for i := range entries {
		entries[i] = &raft.Log{Index: uint64(i + 1), Term: 1, Type: raft.LogCommand, Data: make([]byte, 1024)}
	}
	req := &raft.AppendEntriesRequest{RPCHeader: raft.RPCHeader{ID: []byte("leader")}, Term: 1, Entries: entries}
	b.SetBytes(64 * 1024)
	b.ResetTimer()
	for b.Loop() {
		var resp raft.AppendEntriesResponse
		must.NoError(b, leader.AppendEntries("follower", follower.LocalAddr(), req, &resp))
	}
}

// BenchHeartbeat is the shape of a node's heartbeat request, exported as
// net/rpc requires of an argument type.
type BenchHeartbeat struct {
	NodeID   string
	SecretID string
}

// heartbeatEcho answers with what it is sent.
type heartbeatEcho struct{}

func (heartbeatEcho) Echo(args *BenchHeartbeat, reply *BenchHeartbeat) error {
	*reply = *args
	return nil
}

func benchRPCRoundTrip(b *testing.B, seal bool) {
	dialer, acceptor := benchPair(b, seal)
	srv := rpc.NewServer()
	must.NoError(b, srv.RegisterName("Bench", heartbeatEcho{}))
	go srv.ServeCodec(newServerCodec(acceptor))
	client := NewClient(dialer)
	args := &BenchHeartbeat{NodeID: "6b1f8f4e-6f7e-4c8a-9a57-5c1d0a6d2b10", SecretID: "0f6c1f8e-2b1d-4f0e-8d39-0d2f6b1c7a44"}
	b.ResetTimer()
	for b.Loop() {
		var reply BenchHeartbeat
		must.NoError(b, client.Call("Bench.Echo", args, &reply))
	}
}

func benchTransfer(b *testing.B, seal bool) {
	const size = 64 << 20
	dialer, acceptor := benchPair(b, seal)
	go func() { _, _ = io.Copy(io.Discard, acceptor) }()
	chunk := make([]byte, 256<<10) // raft's snapshot copy writes this much at a time, or less
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		for sent := 0; sent < size; sent += len(chunk) {
			_, err := dialer.Write(chunk)
			must.NoError(b, err)
		}
	}
}
