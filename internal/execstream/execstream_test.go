package execstream

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/shoenig/test/must"
)

// serveOne serves one session of run on a test server and returns the
// URL to dial and a channel that yields Serve's result once it returned.
func serveOne(t *testing.T, run RunFunc) (string, <-chan error) {
	t.Helper()
	served := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := Upgrade(w, r)
		if err != nil {
			served <- err
			return
		}
		served <- Serve(r.Context(), conn, run)
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http"), served
}

func dial(t *testing.T, url string) *websocket.Conn {
	t.Helper()
	conn, resp, err := websocket.DefaultDialer.DialContext(t.Context(), url, nil)
	must.NoError(t, err)
	resp.Body.Close()
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestSession_roundTrip: input reaches the command, its output and exit
// code the caller, and the terminal size the command.
func TestSession_roundTrip(t *testing.T) {
	url, served := serveOne(t, func(ctx context.Context, s Streams) (int, error) {
		size := <-s.Resize
		in, err := io.ReadAll(s.Stdin)
		if err != nil {
			return 0, err
		}
		s.Stdout.Write(bytes.ToUpper(in))
		s.Stderr.Write([]byte("size " + strings.Repeat("x", size.Height) + "\n"))
		return 42, nil
	})
	conn := dial(t, url)
	sizes := make(chan TerminalSize, 1)
	sizes <- TerminalSize{Height: 3, Width: 80}
	var stdout, stderr bytes.Buffer
	code, err := RunClient(t.Context(), conn, &slowReader{r: strings.NewReader(strings.Repeat("abc", 5000)), wait: sizes}, &stdout, &stderr, sizes)
	must.NoError(t, err)
	must.Eq(t, 42, code)
	must.Eq(t, strings.Repeat("ABC", 5000), stdout.String())
	must.Eq(t, "size xxx\n", stderr.String())
	must.NoError(t, <-served)
}

// slowReader starts yielding r once the size has been taken from wait,
// so that the size frame goes before the input's end.
type slowReader struct {
	r    io.Reader
	wait chan TerminalSize
}

func (s *slowReader) Read(p []byte) (int, error) {
	for len(s.wait) > 0 {
		time.Sleep(time.Millisecond)
	}
	return s.r.Read(p)
}

// TestSession_callerGoneCancelsTheCommand: when the caller closes the
// socket mid-command, the command's context ends and Serve returns.
func TestSession_callerGoneCancelsTheCommand(t *testing.T) {
	started := make(chan struct{})
	url, served := serveOne(t, func(ctx context.Context, s Streams) (int, error) {
		close(started)
		<-ctx.Done()
		return 0, ctx.Err()
	})
	conn := dial(t, url)
	<-started
	conn.Close()
	must.ErrorIs(t, <-served, context.Canceled)
}

// TestSession_failureIsTheCloseReason: a command that cannot run is the
// caller's error, cut to what a close frame holds.
func TestSession_failureIsTheCloseReason(t *testing.T) {
	long := "cannot run: " + strings.Repeat("é", 100)
	url, served := serveOne(t, func(ctx context.Context, s Streams) (int, error) {
		return 0, errors.New(long)
	})
	conn := dial(t, url)
	_, err := RunClient(t.Context(), conn, nil, io.Discard, io.Discard, nil)
	must.Error(t, err)
	must.StrHasPrefix(t, "cannot run: éé", err.Error())
	must.StrHasSuffix(t, "...", err.Error())
	must.True(t, len(err.Error()) <= maxCloseText)
	must.Error(t, <-served)
}

// TestReadHandshake reads the token of a version 1 handshake and refuses
// another version or a frame that is not one.
func TestReadHandshake(t *testing.T) {
	tokens := make(chan string, 1)
	errs := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := Upgrade(w, r)
		if err != nil {
			errs <- err
			return
		}
		defer conn.Close()
		token, err := ReadHandshake(conn)
		if err != nil {
			errs <- err
			return
		}
		tokens <- token
	}))
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(srv.URL, "http")
	for _, tc := range []struct {
		frame string
		token string
		err   string
	}{
		{`{"version":1,"auth_token":"s3cret"}`, "s3cret", ""},
		{`{"version":2,"auth_token":"s3cret"}`, "", "unsupported handshake version 2"},
		{`not json`, "", "invalid handshake frame"},
	} {
		conn := dial(t, url)
		must.NoError(t, conn.WriteMessage(websocket.TextMessage, []byte(tc.frame)))
		select {
		case token := <-tokens:
			must.Eq(t, tc.token, token)
		case err := <-errs:
			must.ErrorContains(t, err, tc.err)
		}
	}
}

// TestCheckOrigin: a page of another origin is refused; tools (no
// Origin) and the agent's own pages pass.
func TestCheckOrigin(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:4646/v1/client/allocation/x/exec", nil)
	must.NoError(t, CheckOrigin(r, false))
	r.Header.Set("Origin", "http://127.0.0.1:4646")
	must.NoError(t, CheckOrigin(r, false))
	r.Header.Set("Origin", "http://evil.example")
	must.ErrorContains(t, CheckOrigin(r, false), "evil.example")
	must.NoError(t, CheckOrigin(r, true))
}
