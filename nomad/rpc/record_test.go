package rpc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"
)

// bytesConn is a connection that reads from r and appends what is written
// to w. Deadlines are ignored.
type bytesConn struct {
	net.Conn // nil: what is not defined below is never used
	r        io.Reader
	w        bytes.Buffer
}

func (c *bytesConn) Read(p []byte) (int, error)       { return c.r.Read(p) }
func (c *bytesConn) Write(p []byte) (int, error)      { return c.w.Write(p) }
func (c *bytesConn) SetDeadline(time.Time) error      { return nil }
func (c *bytesConn) SetReadDeadline(time.Time) error  { return nil }
func (c *bytesConn) SetWriteDeadline(time.Time) error { return nil }

var (
	testSendKey = bytes.Repeat([]byte{1}, recordKeySize)
	testRecvKey = bytes.Repeat([]byte{2}, recordKeySize)
)

// sealRecords returns the records a sealed connection writes for each of
// msgs, one write each.
func sealRecords(t *testing.T, msgs ...[]byte) [][]byte {
	t.Helper()
	out := &bytesConn{}
	sealed, err := sealConn(out, testSendKey, testRecvKey)
	must.NoError(t, err)
	var records [][]byte
	for _, m := range msgs {
		_, err := sealed.Write(m)
		must.NoError(t, err)
		stream := out.w.Bytes()
		for len(stream) > 0 {
			n := recordHeaderSize + int(binary.BigEndian.Uint32(stream))
			records = append(records, append([]byte(nil), stream[:n]...))
			stream = stream[n:]
		}
		out.w.Reset()
	}
	return records
}

// openRecords reads what the receiving side of sealRecords' connection
// makes of stream.
func openRecords(t *testing.T, stream []byte) ([]byte, error) {
	t.Helper()
	sealed, err := sealConn(&bytesConn{r: bytes.NewReader(stream)}, testRecvKey, testSendKey)
	must.NoError(t, err)
	return io.ReadAll(sealed)
}

func TestRecord_RoundTrip(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 3*maxRecordPayload/16+5)
	records := sealRecords(t, []byte("small"), big, []byte("x"))
	must.Len(t, 1+4+1, records, must.Sprint("a write larger than a record is split"))
	got, err := openRecords(t, bytes.Join(records, nil))
	must.NoError(t, err)
	must.True(t, bytes.Equal(append(append([]byte("small"), big...), 'x'), got))
}

// Whatever a relay or an attacker on the path does to the records, the
// receiver reads nothing of what was altered, and stops there.
func TestRecord_AlteredStreamIsRefused(t *testing.T) {
	r := sealRecords(t, []byte("one"), []byte("two"), []byte("three"))
	flipped := bytes.Clone(r[1])
	flipped[len(flipped)-1] ^= 1
	badLength := bytes.Clone(r[1])
	binary.BigEndian.PutUint32(badLength, 1<<30)
	otherKey := func() []byte {
		out := &bytesConn{}
		sealed, err := sealConn(out, testRecvKey, testSendKey) // the other direction's
		must.NoError(t, err)
		_, _ = sealed.Write([]byte("two"))
		return out.w.Bytes()
	}()
	cases := map[string]struct {
		stream [][]byte
		read   string
		err    error
	}{
		"a bit flipped":            {[][]byte{r[0], flipped, r[2]}, "one", errRecordForged},
		"a record replayed":        {[][]byte{r[0], r[0], r[1]}, "one", errRecordForged},
		"a record dropped":         {[][]byte{r[0], r[2]}, "one", errRecordForged},
		"records reordered":        {[][]byte{r[0], r[2], r[1]}, "one", errRecordForged},
		"the other direction's":    {[][]byte{r[0], otherKey}, "one", errRecordForged},
		"plaintext injected":       {[][]byte{r[0], []byte(`{"method":"Status.Join","params":[{}],"id":1}`)}, "one", errRecordForged},
		"a length beyond a record": {[][]byte{r[0], badLength}, "one", errRecordForged},
		"cut mid-record":           {[][]byte{r[0], r[1][:10]}, "one", io.ErrUnexpectedEOF},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := openRecords(t, bytes.Join(tc.stream, nil))
			must.ErrorIs(t, err, tc.err)
			must.Eq(t, tc.read, string(got))
		})
	}
}

// A read that times out in the middle of a record (raft sets deadlines on
// its connections) loses nothing: the next read goes on where it stopped.
func TestRecord_ReadResumesAfterATimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := net.Pipe()
		defer a.Close()
		defer b.Close()
		reader, err := sealConn(a, testRecvKey, testSendKey)
		must.NoError(t, err)
		records := sealRecords(t, []byte("after the pause"))
		go func() {
			_, _ = b.Write(records[0][:7])
			time.Sleep(100 * time.Millisecond)
			_, _ = b.Write(records[0][7:])
		}()
		must.NoError(t, reader.SetReadDeadline(time.Now().Add(20*time.Millisecond)))
		_, err = reader.Read(make([]byte, 64))
		must.ErrorIs(t, err, os.ErrDeadlineExceeded)
		must.NoError(t, reader.SetReadDeadline(time.Now().Add(10*time.Second)))
		buf := make([]byte, 64)
		n, err := reader.Read(buf)
		must.NoError(t, err)
		must.Eq(t, "after the pause", string(buf[:n]))
	})
}

// A write that failed left a record cut in two: nothing more is written.
func TestRecord_WriteFailureIsFinal(t *testing.T) {
	a, b := net.Pipe()
	defer b.Close()
	writer, err := sealConn(a, testSendKey, testRecvKey)
	must.NoError(t, err)
	a.Close()
	_, err = writer.Write([]byte("lost"))
	must.Error(t, err)
	_, err2 := writer.Write([]byte("also lost"))
	must.True(t, errors.Is(err2, err), must.Sprintf("%v", err2))
}
