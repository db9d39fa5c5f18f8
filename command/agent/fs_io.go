package agent

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"time"
)

// fsIOTimeout bounds every read of a file the /v1/client/fs endpoints
// serve and every write of it to the client. Reads of regular files from
// a local disk do not block; the deadline is for whatever can (a file the
// poller handles), and the write deadline drops a client that stopped
// reading, releasing the file. It is set before each chunk, so a long
// download or a followed log that keeps moving is never cut, whatever
// write timeout the HTTP server has.
const fsIOTimeout = 30 * time.Second

// fsChunk is how much of a file goes to the client at a time.
const fsChunk = 64 << 10

// sendFile copies f to w, each read and each write under a deadline of
// timeout from when it starts, until the end of f or of ctx.
func sendFile(ctx context.Context, w http.ResponseWriter, f *os.File, timeout time.Duration) error {
	out := &deadlineWriter{w: w, rc: http.NewResponseController(w), timeout: timeout}
	buf := make([]byte, fsChunk)
	for ctx.Err() == nil {
		setReadDeadline(f, timeout)
		n, err := f.Read(buf)
		if n > 0 {
			if _, werr := out.Write(buf[:n]); werr != nil {
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}

// setReadDeadline gives the next read of f a deadline, where f supports
// one (os.ErrNoDeadline: a regular file, whose reads do not block).
func setReadDeadline(f *os.File, timeout time.Duration) {
	_ = f.SetReadDeadline(time.Now().Add(timeout))
}

// deadlineWriter writes to an HTTP response, each write under a deadline
// of timeout, and flushes after each so that the client gets what was
// read as it is read.
type deadlineWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (d *deadlineWriter) Write(b []byte) (int, error) {
	if err := d.rc.SetWriteDeadline(time.Now().Add(d.timeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return 0, err
	}
	n, err := d.w.Write(b)
	if err != nil {
		return n, err
	}
	if err := d.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return n, err
	}
	return n, nil
}
