package nomad

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"
)

func TestJSONValueScanner(t *testing.T) {
	var s jsonValueScanner
	s.feed([]byte(`{"a":"}]{[\"","b":[1,{"c":2}]}`))
	must.Eq(t, int64(0), s.current, must.Sprint("a whole object ends its count"))
	s.feed([]byte("\n  {\"method\":\"x\",\"params\":[\"{{{{"))
	must.Eq(t, int64(32), s.current)
	must.True(t, s.inString)
	s.feed([]byte(`"]}`))
	must.Eq(t, int64(0), s.current)
}

// One JSON-RPC request of any size was buffered whole, from any peer that
// could connect, an anonymous one included: a request over the cap now
// closes the connection once the cap is read, and nothing of it stays.
func TestRPC_oversizedRequestIsCut(t *testing.T) {
	cfg := testConfig(t, "big")
	cfg.Logger = hclog.NewNullLogger()
	srv := startServer(t, cfg)
	waitForLeader(t, srv)
	dialer := newRPCDialer(credentials{role: roleAnonymous}, newInstanceID())
	conn, err := dialer.dial(srv.RPCAddr().String(), connTypeRPC, 5*time.Second)
	must.NoError(t, err)
	defer conn.Close()

	heapBefore := heapAlloc()
	_ = conn.SetWriteDeadline(time.Now().Add(30 * time.Second))
	_, err = conn.Write([]byte(`{"method":"Client.Register","params":[{"Node":{"ID":"`))
	must.NoError(t, err)
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	sent := 0
	for sent < 4*maxRPCRequestBytes {
		if _, err = conn.Write(chunk); err != nil {
			break
		}
		sent += len(chunk)
	}
	must.Error(t, err, must.Sprintf("the server read %d bytes of one request", sent))
	t.Logf("the server closed the connection after %d MiB were sent", sent>>20)
	must.Less(t, 2*maxRPCRequestBytes, sent)
	growth := int64(heapAlloc()) - int64(heapBefore)
	t.Logf("heap retained once the connection is gone: %d bytes", growth)
	must.Less(t, int64(maxRPCRequestBytes), growth)

	// The server still answers a request of ordinary size.
	conn2, err := dialer.dial(srv.RPCAddr().String(), connTypeRPC, 5*time.Second)
	must.NoError(t, err)
	defer conn2.Close()
	_ = conn2.SetDeadline(time.Now().Add(10 * time.Second))
	_, err = conn2.Write([]byte(`{"method":"Client.Register","params":[{}],"id":7}` + "\n"))
	must.NoError(t, err)
	line, err := bufio.NewReader(conn2).ReadString('\n')
	must.NoError(t, err)
	must.True(t, strings.HasPrefix(line, `{"id":7`), must.Sprint(line))
}
