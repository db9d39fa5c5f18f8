package execstream

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"
)

const (
	// MaxInputFrame bounds one message from the caller. Nomad's clients
	// send stdin 2 KiB at a time; a larger message is refused (close
	// 1009, message too big) before it is read into memory.
	MaxInputFrame = 64 << 10
	// HeartbeatInterval is how often each side sends an empty frame, so
	// that proxies keep the connection and a caller that went away
	// without closing is noticed.
	HeartbeatInterval = 10 * time.Second
	// writeTimeout bounds one frame's write: a caller that stops reading
	// ends its session rather than hold the command.
	writeTimeout = 30 * time.Second
	// handshakeTimeout bounds the wait for a handshake frame.
	handshakeTimeout = 30 * time.Second
	// lingerTimeout bounds the wait, after the last frame, for the caller
	// to close: closing first could reset the connection before the
	// caller has read the exit code.
	lingerTimeout = 5 * time.Second
	// maxCloseText is the most a close message's text may hold.
	maxCloseText = 123
)

// Streams are the command's side of a session: what the caller types,
// where its output goes, and the caller's terminal sizes. Stdin ends at
// the caller's close frame; Resize carries the latest size only.
type Streams struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Resize <-chan TerminalSize
}

// RunFunc runs the command with the session's streams until it exits, or
// until ctx is done (the caller went away), when it must kill it. It
// returns only once everything the command wrote has been written to
// Stdout and Stderr.
type RunFunc func(ctx context.Context, s Streams) (exitCode int, err error)

// Upgrade turns the request into a websocket. On failure the caller has
// had an HTTP error (400 for a request that is not a websocket
// handshake) and the error says why. The origin must have been checked
// (CheckOrigin) before.
func Upgrade(w http.ResponseWriter, r *http.Request) (*websocket.Conn, error) {
	u := websocket.Upgrader{
		HandshakeTimeout: handshakeTimeout,
		ReadBufferSize:   4 << 10,
		WriteBufferSize:  4 << 10,
		CheckOrigin:      func(*http.Request) bool { return true },
		Error: func(w http.ResponseWriter, _ *http.Request, status int, reason error) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			w.WriteHeader(status)
			fmt.Fprintf(w, "this route opens a websocket: %v\n", reason)
		},
	}
	conn, err := u.Upgrade(hijacker{w}, r, nil)
	if err != nil {
		return nil, fmt.Errorf("upgrade to a websocket: %w", err)
	}
	return conn, nil
}

// CheckOrigin refuses a browser's request made from a page of another
// origin than the agent's: a page must not run commands with the
// credentials of a user who visits it. Requests without an Origin (every
// non-browser client) and those an agent forwarded (checked by that
// agent; a page cannot set the header) pass.
func CheckOrigin(r *http.Request, forwarded bool) error {
	origin := r.Header.Get("Origin")
	if origin == "" || forwarded {
		return nil
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return fmt.Errorf("invalid Origin header %q", origin)
	}
	if u.Host != r.Host {
		return fmt.Errorf("a page of %s may not open a session on %s", origin, r.Host)
	}
	return nil
}

// hijacker lets the upgrader take the connection through wrapped
// response writers, which unwrap to the server's own.
type hijacker struct{ http.ResponseWriter }

func (h hijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(h.ResponseWriter).Hijack()
}

// ReadHandshake reads the handshake frame of a caller that asked for one
// and returns its token.
func ReadHandshake(conn *websocket.Conn) (string, error) {
	conn.SetReadLimit(MaxInputFrame)
	_ = conn.SetReadDeadline(time.Now().Add(handshakeTimeout))
	defer conn.SetReadDeadline(time.Time{})
	_, data, err := conn.ReadMessage()
	if err != nil {
		return "", fmt.Errorf("read the handshake frame: %w", err)
	}
	var h Handshake
	if err := json.Unmarshal(data, &h); err != nil {
		return "", fmt.Errorf("invalid handshake frame: %v", err)
	}
	if h.Version != HandshakeVersion {
		return "", fmt.Errorf("unsupported handshake version %d: this agent speaks version %d", h.Version, HandshakeVersion)
	}
	return h.AuthToken, nil
}

// Refuse ends a session that cannot run: a close message whose text is
// the reason, with the code of the HTTP status it would have had (a
// policy violation for the caller's fault, an internal error for the
// agent's), then the connection closes.
func Refuse(conn *websocket.Conn, status int, reason error) {
	code := websocket.ClosePolicyViolation
	if status >= 500 {
		code = websocket.CloseInternalServerErr
	}
	sendClose(conn, code, reason.Error())
	linger(conn)
}

// sendClose sends a close message, its text cut to what a close frame
// holds.
func sendClose(conn *websocket.Conn, code int, text string) {
	if len(text) > maxCloseText {
		cut := maxCloseText - len("...")
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "..."
	}
	_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), time.Now().Add(writeTimeout))
}

// linger waits a while for the caller to read what was sent and close,
// then closes the connection.
func linger(conn *websocket.Conn) {
	_ = conn.SetReadDeadline(time.Now().Add(lingerTimeout))
	for {
		if _, _, err := conn.NextReader(); err != nil {
			break
		}
	}
	conn.Close()
}

// session is one command's stream over one connection.
type session struct {
	conn   *websocket.Conn
	cancel context.CancelFunc

	// writeMu makes one writer of data frames at a time.
	writeMu sync.Mutex

	stdinR *io.PipeReader
	stdinW *io.PipeWriter
	// stdin queues the caller's input for the command: a few frames, so
	// that a command that does not read its input yet holds back neither
	// a resize nor the caller's close. Once it is full, the caller waits.
	stdin  chan []byte
	resize chan TerminalSize
}

// stdinQueue is how many frames of input wait for the command at most:
// with MaxInputFrame, what a session holds in memory is bounded.
const stdinQueue = 16

// Serve runs the command and streams it over conn until it exits, then
// sends its exit code and closes conn. The command is killed (its ctx is
// cancelled) when the caller goes away, breaks the protocol or stops
// reading, or when ctx is done. Serve returns once every goroutine it
// started has ended; the error is the command's failure to run, which
// the caller was sent as the close reason.
func Serve(ctx context.Context, conn *websocket.Conn, run RunFunc) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	conn.SetReadLimit(MaxInputFrame)
	s := &session{conn: conn, cancel: cancel, resize: make(chan TerminalSize, 1), stdin: make(chan []byte, stdinQueue)}
	s.stdinR, s.stdinW = io.Pipe()

	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		s.readLoop()
	}()
	feedDone := make(chan struct{})
	go func() {
		defer close(feedDone)
		s.feedStdin()
	}()
	beatDone := make(chan struct{})
	go func() {
		defer close(beatDone)
		s.heartbeat(ctx)
	}()

	code, err := run(ctx, Streams{
		Stdin:  s.stdinR,
		Stdout: &frameWriter{s: s, stderr: false},
		Stderr: &frameWriter{s: s, stderr: true},
		Resize: s.resize,
	})
	// The command no longer reads its input: a blocked write ends.
	s.stdinR.CloseWithError(io.ErrClosedPipe)
	cancel()
	<-beatDone
	switch {
	case err != nil:
		sendClose(conn, websocket.CloseInternalServerErr, err.Error())
	default:
		if werr := s.writeFrame(&OutputFrame{Exited: true, Result: &ExitResult{ExitCode: code}}); werr == nil {
			sendClose(conn, websocket.CloseNormalClosure, "")
		}
	}
	// The read loop drains the caller's frames until it closes, or the
	// deadline passes.
	_ = conn.SetReadDeadline(time.Now().Add(lingerTimeout))
	<-readDone
	<-feedDone
	conn.Close()
	return err
}

// feedStdin writes the queued input to the command, until the caller's
// close frame or the end of the connection; input the command no
// longer reads is dropped.
func (s *session) feedStdin() {
	for data := range s.stdin {
		// A write blocks until the command reads it, or no longer can.
		_, _ = s.stdinW.Write(data)
	}
	s.stdinW.Close()
}

// readLoop reads the caller's frames until the connection fails or
// closes; then the command is cancelled, unless it has exited already.
func (s *session) readLoop() {
	defer s.cancel()
	stdinOpen := true
	endStdin := func() {
		if stdinOpen {
			close(s.stdin)
			stdinOpen = false
		}
	}
	defer endStdin()
	for {
		_, data, err := s.conn.ReadMessage()
		if err != nil {
			return
		}
		var f InputFrame
		if err := json.Unmarshal(data, &f); err != nil {
			sendClose(s.conn, websocket.CloseUnsupportedData, fmt.Sprintf("invalid input frame: %v", err))
			return
		}
		switch {
		case f.Stdin != nil:
			if len(f.Stdin.Data) > 0 && stdinOpen {
				// Full, the queue holds the caller to the command's
				// pace.
				s.stdin <- f.Stdin.Data
			}
			if f.Stdin.Close {
				endStdin()
			}
		case f.TTYSize != nil:
			s.offerSize(*f.TTYSize)
		}
	}
}

// offerSize hands the command the latest terminal size, replacing one it
// has not taken yet.
func (s *session) offerSize(size TerminalSize) {
	for {
		select {
		case s.resize <- size:
			return
		default:
		}
		select {
		case <-s.resize:
		default:
		}
	}
}

// heartbeat sends an empty frame every HeartbeatInterval until ctx is
// done; a failed write cancels the session.
func (s *session) heartbeat(ctx context.Context) {
	t := time.NewTicker(HeartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.writeFrame(&OutputFrame{}); err != nil {
				s.cancel()
				return
			}
		}
	}
}

// writeFrame sends one frame, within writeTimeout.
func (s *session) writeFrame(f *OutputFrame) error {
	data, err := json.Marshal(f)
	if err != nil {
		return err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	_ = s.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
	return s.conn.WriteMessage(websocket.TextMessage, data)
}

// maxOutputChunk bounds the data of one output frame.
const maxOutputChunk = 32 << 10

// frameWriter sends what the command writes to one stream as frames. A
// failed send cancels the session: the caller is gone or stopped reading.
type frameWriter struct {
	s      *session
	stderr bool
}

func (w *frameWriter) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		chunk := p[:min(len(p), maxOutputChunk)]
		op := &IOOperation{Data: chunk}
		f := &OutputFrame{Stdout: op}
		if w.stderr {
			f = &OutputFrame{Stderr: op}
		}
		if err := w.s.writeFrame(f); err != nil {
			w.s.cancel()
			return written, fmt.Errorf("send output: %w", err)
		}
		written += len(chunk)
		p = p[len(chunk):]
	}
	return written, nil
}
