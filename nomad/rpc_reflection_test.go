package nomad

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	nomadrpc "github.com/drover-io/drover/nomad/rpc"
	"github.com/drover-io/drover/structs"
)

// The tests here are issue 21's reflection and relay, done as an attacker
// who receives one outgoing connection from a member (a stale server_join
// or client.servers entry) would do them, with real sockets: the attacker
// opens a connection of its own to a server, passes the handshake's
// messages between the two connections so that the member proves itself
// for the attacker, and then sends its own calls on the connection it
// opened.

// handshakeThief is an attacker's listener. For each connection a member
// opens to it, it opens one to target and passes the handshake between
// them: everything target sends goes to the member, the member's first
// message (its credentials) goes to target, and nothing else of the
// member's. It then sends inject on its own connection to target.
type handshakeThief struct {
	ln     net.Listener
	inject []byte
	// rewrite, when set, changes the first bytes target sends (its
	// challenge) before they reach the member.
	rewrite func([]byte)
	// replay, when set, has the thief replay the member's credentials on
	// a new connection of its own, and inject there.
	replay bool
	// target is sent once, when the attacker knows it: a member may dial
	// the thief before then.
	target chan string
	// done receives, for each connection stolen, what target answered
	// to the injected bytes (what the attacker read back before target
	// closed, or a second passed).
	done chan []byte
}

func newHandshakeThief(t *testing.T, inject []byte) *handshakeThief {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must.NoError(t, err)
	h := &handshakeThief{ln: ln, inject: inject, target: make(chan string, 1), done: make(chan []byte, 16)}
	t.Cleanup(func() { ln.Close() })
	go h.serve(t)
	return h
}

func (h *handshakeThief) addr() string { return h.ln.Addr().String() }

// aim points the thief at the server it opens its own connections to.
func (h *handshakeThief) aim(target string) { h.target <- target }

func (h *handshakeThief) serve(t *testing.T) {
	var target string
	for {
		member, err := h.ln.Accept()
		if err != nil {
			return
		}
		if target == "" {
			target = <-h.target
		}
		go func() {
			defer member.Close()
			answer, err := h.steal(member, target)
			if err != nil {
				t.Logf("thief: %v", err)
			}
			select {
			case h.done <- answer:
			default:
			}
		}()
	}
}

// steal relays one handshake of member's to target and injects.
func (h *handshakeThief) steal(member net.Conn, target string) ([]byte, error) {
	_ = member.SetDeadline(time.Now().Add(leaderWait))
	var kind [1]byte
	if _, err := io.ReadFull(member, kind[:]); err != nil {
		return nil, err
	}
	own, err := net.DialTimeout("tcp", target, time.Second)
	if err != nil {
		return nil, err
	}
	defer own.Close()
	_ = own.SetDeadline(time.Now().Add(leaderWait))
	if _, err := own.Write(kind[:]); err != nil {
		return nil, err
	}
	// Whatever target says goes to the member: its challenge, then its
	// verdict and proof.
	fromTarget := make(chan []byte, 64)
	go func() {
		defer close(fromTarget)
		buf := make([]byte, 4096)
		for first := true; ; first = false {
			n, err := own.Read(buf)
			if n > 0 {
				chunk := append([]byte(nil), buf[:n]...)
				if first && h.rewrite != nil {
					h.rewrite(chunk)
				}
				fromTarget <- chunk
				_, _ = member.Write(chunk)
			}
			if err != nil {
				return
			}
		}
	}()
	// The member's answer to the challenge is all it sends before it
	// hears back: read until it falls quiet.
	creds, _ := readQuiet(member, 300*time.Millisecond)
	if len(creds) == 0 {
		return nil, errors.New("the member sent no credentials")
	}
	if _, err := own.Write(creds); err != nil {
		return nil, err
	}
	// Let target's verdict reach the member, then speak.
	drainQuiet(fromTarget, 300*time.Millisecond)
	if h.replay {
		return replayHandshake(target, kind[0], creds, h.inject)
	}
	if _, err := own.Write(h.inject); err != nil {
		return nil, err
	}
	var answer []byte
	timeout := time.After(time.Second)
	for {
		select {
		case chunk, ok := <-fromTarget:
			if !ok {
				return answer, nil
			}
			answer = append(answer, chunk...)
		case <-timeout:
			return answer, nil
		}
	}
}

// replayHandshake opens a new connection of kind to target, answers its
// challenge with creds, recorded from another connection, and sends
// inject. It returns what target answered.
func replayHandshake(target string, kind byte, creds, inject []byte) ([]byte, error) {
	again, err := net.DialTimeout("tcp", target, time.Second)
	if err != nil {
		return nil, err
	}
	defer again.Close()
	_ = again.SetDeadline(time.Now().Add(leaderWait))
	if _, err := again.Write([]byte{kind}); err != nil {
		return nil, err
	}
	if _, err := readQuiet(again, 300*time.Millisecond); err != nil && !isTimeout(err) {
		return nil, err
	}
	if _, err := again.Write(creds); err != nil {
		return nil, err
	}
	_, _ = readQuiet(again, 300*time.Millisecond) // the verdict
	if _, err := again.Write(inject); err != nil {
		return nil, nil // refused and closed
	}
	answer, _ := readQuiet(again, time.Second)
	return answer, nil
}

// isTimeout reports whether err is a network timeout.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// readQuiet reads conn until it has been silent for quiet.
func readQuiet(conn net.Conn, quiet time.Duration) ([]byte, error) {
	var out []byte
	buf := make([]byte, 4096)
	for {
		_ = conn.SetReadDeadline(time.Now().Add(quiet))
		n, err := conn.Read(buf)
		out = append(out, buf[:n]...)
		if err != nil {
			_ = conn.SetReadDeadline(time.Time{})
			return out, err
		}
	}
}

// drainQuiet waits until ch has been silent for quiet.
func drainQuiet(ch <-chan []byte, quiet time.Duration) {
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-time.After(quiet):
			return
		}
	}
}

// reflectionSeen counts the log lines whose error says that a handshake
// was refused as a reflection.
type reflectionSeen struct{ n atomic.Int64 }

func (r *reflectionSeen) Accept(_ string, _ hclog.Level, _ string, args ...any) {
	if strings.Contains(fmt.Sprint(args...), "reflected back") {
		r.n.Add(1)
	}
}

// rpcFrame is a JSON-RPC call as an attacker writes it by hand.
func rpcFrame(t *testing.T, method string, args any) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"method": method, "params": []any{args}, "id": 1})
	must.NoError(t, err)
	return append(b, '\n')
}

// A server whose server_join names the attacker dials it; the attacker
// hands the server's own challenge back to it (as it is, or with the
// server's instance ID in it replaced) and its answer to the server, then
// asks, as a server, to add a voter of its own.
func TestReflection_StaleServerJoinAddsNoVoter(t *testing.T) {
	for name, rewrite := range map[string]func([]byte){
		"as it is": nil,
		"instance ID replaced": func(hello []byte) {
			if len(hello) >= len(nomadrpc.HandshakeMagic)+nomadrpc.InstanceIDSize {
				_, _ = rand.Read(hello[len(nomadrpc.HandshakeMagic) : len(nomadrpc.HandshakeMagic)+nomadrpc.InstanceIDSize])
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			rogue, err := net.Listen("tcp", "127.0.0.1:0")
			must.NoError(t, err)
			defer rogue.Close()
			thief := newHandshakeThief(t, rpcFrame(t, "Status.Join", &JoinRequest{ID: "rogue", RPCAddr: rogue.Addr().String()}))
			thief.rewrite = rewrite
			cfg := testConfig(t, "reflected")
			cfg.ServerJoin = []string{thief.addr()}
			seen := &reflectionSeen{}
			cfg.Logger.(hclog.InterceptLogger).RegisterSink(seen)
			s := startServer(t, cfg)
			thief.aim(s.RPCAdvertise())
			waitForLeader(t, s)
			before := s.Peers()

			for range 2 {
				select {
				case answer := <-thief.done:
					t.Logf("the server answered the injected join with %q", answer)
				case <-time.After(leaderWait):
					t.Fatal("the server never dialed the stale join address")
				}
			}
			must.Eq(t, before, s.Peers(), must.Sprint("no voter was added"))
			must.Positive(t, seen.n.Load(), must.Sprint("the server saw its own connection come back, and refused it"))
			waitForLeader(t, s)
			must.True(t, s.IsLeader(), must.Sprint("the server keeps its quorum"))
		})
	}
}

// A client agent whose client.servers names the attacker dials it with
// the registration secret; the attacker passes the handshake on to the
// real server and then registers a node of its own on the connection the
// client proved.
func TestRelay_StaleClientServerRegistersNoNode(t *testing.T) {
	s := startServer(t, testConfig(t, "relayed"))
	waitForLeader(t, s)
	rogue := testNode(structs.GenerateUUID())
	thief := newHandshakeThief(t, rpcFrame(t, "Client.Register", &NodeRegisterRequest{Node: rogue}))
	thief.aim(s.RPCAdvertise())

	agent := clientAgentRPC(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var resp NodeUpdateResponse
	own := testNode(structs.GenerateUUID())
	err := agent.Call(ctx, thief.addr(), "Client.Register", &NodeRegisterRequest{Node: own}, &resp)
	must.Error(t, err, must.Sprint("the client's own call never reached the server"))
	select {
	case answer := <-thief.done:
		t.Logf("the server answered the injected registration with %q", answer)
	case <-time.After(leaderWait):
		t.Fatal("the client never dialed the thief")
	}
	stored, err := s.State().NodeByID(nil, rogue.ID)
	must.NoError(t, err)
	must.Nil(t, stored, must.Sprint("no rogue node was registered"))
}

// The same client's handshake, recorded on its way to the server and
// replayed on a new connection of the attacker's, proves nothing there
// either. (A replay failed before issue 21 too: this holds it.)
func TestReplay_RecordedClientHandshakeRegistersNoNode(t *testing.T) {
	cfg := testConfig(t, "replayed")
	refused := countLogs(cfg, "refused RPC connection")
	s := startServer(t, cfg)
	waitForLeader(t, s)
	rogue := testNode(structs.GenerateUUID())
	thief := newHandshakeThief(t, rpcFrame(t, "Client.Register", &NodeRegisterRequest{Node: rogue}))
	thief.replay = true
	thief.aim(s.RPCAdvertise())

	agent := clientAgentRPC(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var resp NodeUpdateResponse
	_ = agent.Call(ctx, thief.addr(), "Client.Register", &NodeRegisterRequest{Node: testNode(structs.GenerateUUID())}, &resp)
	select {
	case answer := <-thief.done:
		must.Eq(t, "", string(answer), must.Sprint("the server answered nothing on the replayed connection"))
		must.Positive(t, refused.n.Load(), must.Sprint("the server refused the replayed handshake"))
	case <-time.After(leaderWait):
		t.Fatal("the client never dialed the thief")
	}
	stored, err := s.State().NodeByID(nil, rogue.ID)
	must.NoError(t, err)
	must.Nil(t, stored, must.Sprint("no rogue node was registered"))
}
