package docker

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers/shared/logrotate"
	"github.com/drover-io/drover/internal/beneath"
)

// frame is one message of the engine's multiplexed log stream, with its
// time.
func frame(stream byte, at time.Time, msg string) []byte {
	payload := at.UTC().Format(time.RFC3339Nano) + " " + msg
	hdr := make([]byte, 8)
	hdr[0] = stream
	binary.BigEndian.PutUint32(hdr[4:], uint32(len(payload)))
	return append(hdr, payload...)
}

func TestLogStream_CopyFrames(t *testing.T) {
	dir := t.TempDir()
	logDir, err := beneath.Open(dir)
	must.NoError(t, err)
	defer logDir.Close()
	out, err := logrotate.New(logDir, "t.stdout", 2, 1<<20)
	must.NoError(t, err)
	errs, err := logrotate.New(logDir, "t.stderr", 2, 1<<20)
	must.NoError(t, err)
	ls := &logStream{logger: hclog.NewNullLogger(), stdout: out, stderr: errs}
	t0 := time.Unix(1700000000, 0)

	// The engine stored stderr's message after a later one of stdout's:
	// both are written.
	var pass bytes.Buffer
	pass.Write(frame(1, t0.Add(1), "one\n"))
	pass.Write(frame(1, t0.Add(3), "three\n"))
	pass.Write(frame(2, t0.Add(2), "two\n"))
	must.NoError(t, ls.copyFrames(bufio.NewReader(&pass)))
	must.Eq(t, t0.Add(3), ls.last)

	// The next pass starts at the last one written (since includes it),
	// which is not written again.
	pass.Reset()
	pass.Write(frame(1, t0.Add(3), "three\n"))
	pass.Write(frame(2, t0.Add(4), "four\n"))
	must.NoError(t, ls.copyFrames(bufio.NewReader(&pass)))
	must.NoError(t, out.Close())
	must.NoError(t, errs.Close())

	stdout, err := os.ReadFile(filepath.Join(dir, "t.stdout.0"))
	must.NoError(t, err)
	must.Eq(t, "one\nthree\n", string(stdout))
	stderr, err := os.ReadFile(filepath.Join(dir, "t.stderr.0"))
	must.NoError(t, err)
	must.Eq(t, "two\nfour\n", string(stderr))
}
