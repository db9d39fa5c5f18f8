package execstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// stdinChunk is how much of the caller's input one frame carries, as
// Nomad's client sends it.
const stdinChunk = 2 << 10

// maxOutputFrame bounds one frame from the agent: a chunk of output
// (maxOutputChunk), base64-encoded, in its JSON.
const maxOutputFrame = 4*maxOutputChunk/3 + 1<<10

// RunClient drives a session on conn, opened on an exec route: it sends
// stdin (then its end), the sizes sizes carries (nil for none) and
// heartbeats, writes the command's output to stdout and stderr, and
// returns the command's exit code. The session ends when the command
// exits, the agent closes the connection (its reason is the error), or
// ctx is done. The caller closes conn afterwards. A read of stdin in
// progress cannot be interrupted: the goroutine reading it ends at the
// read's return.
func RunClient(ctx context.Context, conn *websocket.Conn, stdin io.Reader, stdout, stderr io.Writer, sizes <-chan TerminalSize) (int, error) {
	// The goroutines end with ctx, cancelled before they are waited for.
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	conn.SetReadLimit(maxOutputFrame)

	var sendMu sync.Mutex
	send := func(f *InputFrame) error {
		data, err := json.Marshal(f)
		if err != nil {
			return err
		}
		sendMu.Lock()
		defer sendMu.Unlock()
		_ = conn.SetWriteDeadline(time.Now().Add(writeTimeout))
		return conn.WriteMessage(websocket.TextMessage, data)
	}

	sendErr := make(chan error, 1)
	if stdin != nil {
		go func() {
			if err := sendStdin(ctx, stdin, send); err != nil && ctx.Err() == nil {
				sendErr <- err
			}
		}()
	} else if err := send(&InputFrame{Stdin: &IOOperation{Close: true}}); err != nil {
		return -1, fmt.Errorf("send input: %w", err)
	}
	wg.Go(func() {
		t := time.NewTicker(HeartbeatInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case size, ok := <-sizes:
				if !ok {
					sizes = nil
					continue
				}
				_ = send(&InputFrame{TTYSize: &size})
			case <-t.C:
				_ = send(&InputFrame{})
			}
		}
	})

	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	go func() {
		code, err := receive(conn, stdout, stderr)
		done <- result{code, err}
	}()
	select {
	case r := <-done:
		return r.code, r.err
	case err := <-sendErr:
		return -1, fmt.Errorf("send input: %w", err)
	case <-ctx.Done():
		// Closing the connection ends the receiving goroutine.
		conn.Close()
		<-done
		return -1, ctx.Err()
	}
}

// sendStdin sends what stdin yields, then its end.
func sendStdin(ctx context.Context, stdin io.Reader, send func(*InputFrame) error) error {
	buf := make([]byte, stdinChunk)
	for ctx.Err() == nil {
		n, err := stdin.Read(buf)
		if n > 0 {
			if serr := send(&InputFrame{Stdin: &IOOperation{Data: buf[:n]}}); serr != nil {
				return serr
			}
		}
		if errors.Is(err, io.EOF) {
			return send(&InputFrame{Stdin: &IOOperation{Close: true}})
		}
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
	}
	return nil
}

// receive writes the agent's output frames until the exit frame, and
// returns its code; or the reason the agent closed the connection.
func receive(conn *websocket.Conn, stdout, stderr io.Writer) (int, error) {
	for {
		_, data, err := conn.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				if ce.Text != "" {
					return -1, errors.New(ce.Text)
				}
				return -1, fmt.Errorf("the agent closed the session before the command exited: %w", err)
			}
			return -1, err
		}
		var f OutputFrame
		if err := json.Unmarshal(data, &f); err != nil {
			return -1, fmt.Errorf("invalid frame from the agent: %w", err)
		}
		switch {
		case f.Stdout != nil:
			if _, err := stdout.Write(f.Stdout.Data); err != nil {
				return -1, fmt.Errorf("write stdout: %w", err)
			}
		case f.Stderr != nil:
			if _, err := stderr.Write(f.Stderr.Data); err != nil {
				return -1, fmt.Errorf("write stderr: %w", err)
			}
		case f.Exited && f.Result != nil:
			return f.Result.ExitCode, nil
		}
	}
}
