package agent

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

// TestSendFile_DropsAClientThatStopsReading serves a file far bigger than
// the connection's buffers to a client that reads the headers and then
// nothing: the write deadline ends the send, and the file is released,
// instead of the handler waiting on the client forever.
func TestSendFile_DropsAClientThatStopsReading(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big")
	f, err := os.Create(path)
	must.NoError(t, err)
	must.NoError(t, f.Truncate(1<<30)) // sparse: a GiB of zeros, read fast
	must.NoError(t, f.Close())

	const timeout = 200 * time.Millisecond
	result := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, err := os.Open(path)
		if err != nil {
			result <- err
			return
		}
		defer f.Close()
		w.WriteHeader(http.StatusOK)
		result <- sendFile(r.Context(), w, f, timeout)
	}))
	defer srv.Close()

	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	must.NoError(t, err)
	defer conn.Close()
	_, err = conn.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
	must.NoError(t, err)
	// Read nothing more: the send fills the buffers and stalls.

	select {
	case err := <-result:
		must.True(t, errors.Is(err, os.ErrDeadlineExceeded), must.Sprintf("want a write deadline error, got %v", err))
	case <-time.After(20 * time.Second):
		t.Fatal("the send did not end while the client read nothing")
	}
}

// TestSendFile_StopsWithTheRequest ends a send when its request's context
// ends.
func TestSendFile_StopsWithTheRequest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "file")
	must.NoError(t, os.WriteFile(path, []byte("data"), 0o644))
	f, err := os.Open(path)
	must.NoError(t, err)
	defer f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := httptest.NewRecorder()
	must.ErrorIs(t, sendFile(ctx, rec, f, time.Second), context.Canceled)
	must.Eq(t, 0, rec.Body.Len())
}
