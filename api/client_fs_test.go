package api

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func TestAllocFS_Endpoints(t *testing.T) {
	alloc := &Allocation{ID: "a1"}
	runEndpointCases(t, []endpointCase{
		{
			name: "List",
			reply: reply{body: `[{"Name":"alloc","IsDir":true,"Size":4096,"FileMode":"drwxrwxrwx","ModTime":"2025-01-01T00:00:00Z"},
				{"Name":"maxrun","IsDir":true,"Size":4096,"FileMode":"drwxrwxrwx","ModTime":"2025-01-01T00:00:00Z"}]`},
			call: func(t *testing.T, c *Client) {
				files, _, err := c.AllocFS().List(alloc, "/", nil)
				must.NoError(t, err)
				must.Len(t, 2, files)
				must.True(t, files[1].IsDir)
				must.Eq(t, "maxrun", files[1].Name)
				must.Eq(t, 2025, files[0].ModTime.Year())
			},
			want: wantRequest{method: "GET", path: "/v1/client/fs/ls/a1", query: url.Values{"path": {"/"}}},
		},
		{
			name:  "Cat",
			reply: reply{body: "hello\n"},
			call: func(t *testing.T, c *Client) {
				r, err := c.AllocFS().Cat(alloc, "alloc/logs/maxrun.stdout.0", nil)
				must.NoError(t, err)
				defer r.Close()
				got, err := io.ReadAll(r)
				must.NoError(t, err)
				must.Eq(t, "hello\n", string(got))
			},
			want: wantRequest{method: "GET", path: "/v1/client/fs/cat/a1", query: url.Values{"path": {"alloc/logs/maxrun.stdout.0"}}},
		},
		{
			name:  "LogsPlain",
			reply: reply{body: "line 1\nline 2\n"},
			call: func(t *testing.T, c *Client) {
				r, err := c.AllocFS().LogsPlain(context.Background(), "a1", "maxrun", "stderr", "end", 100, true)
				must.NoError(t, err)
				defer r.Close()
				got, err := io.ReadAll(r)
				must.NoError(t, err)
				must.Eq(t, "line 1\nline 2\n", string(got))
			},
			want: wantRequest{method: "GET", path: "/v1/client/fs/logs/a1", query: url.Values{
				"task": {"maxrun"}, "type": {"stderr"}, "origin": {"end"}, "offset": {"100"},
				"follow": {"true"}, "plain": {"true"},
			}},
		},
		{
			name:  "Logs in frames",
			reply: reply{body: `{"Offset":6,"Data":"aGVsbG8K","File":"alloc/logs/maxrun.stdout.0"}{}{"FileEvent":"file truncated","File":"alloc/logs/maxrun.stdout.0"}`},
			call: func(t *testing.T, c *Client) {
				frames, errCh := c.AllocFS().Logs(alloc, false, "maxrun", "stdout", "", 0, nil, nil)
				var got []*StreamFrame
				for f := range frames {
					got = append(got, f)
				}
				must.Eq(t, 0, len(errCh))
				must.Len(t, 2, got, must.Sprint("the heartbeat frame is dropped"))
				must.Eq(t, "hello\n", string(got[0].Data))
				must.Eq(t, int64(6), got[0].Offset)
				must.Eq(t, "file truncated", got[1].FileEvent)
			},
			want: wantRequest{method: "GET", path: "/v1/client/fs/logs/a1", query: url.Values{
				"task": {"maxrun"}, "type": {"stdout"}, "origin": {"start"}, "offset": {"0"}, "follow": {"false"},
			}},
		},
	})
}

func TestAllocFS_LogsBadFrame(t *testing.T) {
	c, _ := newFakeAgent(t, reply{body: `{"Data":"aGk="}not json`})
	frames, errCh := c.AllocFS().Logs(&Allocation{ID: "a1"}, false, "maxrun", "stdout", "start", 0, nil, nil)
	var n int
	for range frames {
		n++
	}
	must.Eq(t, 1, n)
	must.ErrorContains(t, <-errCh, "decode log frame")
}

func TestAllocFS_LogsAgentRefuses(t *testing.T) {
	c, _ := newFakeAgent(t, reply{status: 404, body: "Unknown allocation \"a1\""})
	frames, errCh := c.AllocFS().Logs(&Allocation{ID: "a1"}, false, "maxrun", "stdout", "start", 0, nil, nil)
	must.Nil(t, frames)
	err := <-errCh
	must.True(t, IsNotFound(err))

	_, err = c.AllocFS().LogsPlain(context.Background(), "a1", "maxrun", "stdout", "start", 0, false)
	must.True(t, IsNotFound(err))
}

// followingAgent streams one frame and then holds the stream open, as an
// agent following a log that does not grow.
func followingAgent(t *testing.T) *Client {
	t.Helper()
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"Offset":3,"Data":"aGkK"}`)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(srv.Close)
	// Cleanups run last first: end the stream even when a test failed
	// before cancelling it, so that srv.Close does not wait for ever.
	t.Cleanup(func() { close(stop) })
	return newTestClient(t, srv.URL)
}

func TestAllocFS_LogsFollowCancel(t *testing.T) {
	c := followingAgent(t)
	cancel := make(chan struct{})
	frames, errCh := c.AllocFS().Logs(&Allocation{ID: "a1"}, true, "maxrun", "stdout", "start", 0, cancel, nil)

	first := <-frames
	must.Eq(t, "hi\n", string(first.Data))
	close(cancel)
	drainFrames(t, frames)
	must.Eq(t, 0, len(errCh), must.Sprint("cancelling is not a failure"))
}

func TestAllocFS_LogsFollowContext(t *testing.T) {
	c := followingAgent(t)
	ctx, cancel := context.WithCancel(context.Background())
	q := (&QueryOptions{}).WithContext(ctx)
	frames, errCh := c.AllocFS().Logs(&Allocation{ID: "a1"}, true, "maxrun", "stdout", "start", 0, nil, q)

	<-frames
	cancel()
	drainFrames(t, frames)
	must.Eq(t, 0, len(errCh))
}

// drainFrames waits for the frame channel to close.
func drainFrames(t *testing.T, frames <-chan *StreamFrame) {
	t.Helper()
	timeout := time.After(livenessBound)
	for {
		select {
		case _, ok := <-frames:
			if !ok {
				return
			}
		case <-timeout:
			t.Fatal("the frame channel never closed")
		}
	}
}

func TestAllocFS_LogsPlainFollowContext(t *testing.T) {
	c := followingAgent(t)
	ctx, cancel := context.WithCancel(context.Background())
	r, err := c.AllocFS().LogsPlain(ctx, "a1", "maxrun", "stdout", "start", 0, true)
	must.NoError(t, err)
	defer r.Close()

	buf := make([]byte, 64)
	n, err := r.Read(buf)
	must.NoError(t, err)
	must.Positive(t, n)
	cancel()
	_, err = io.ReadAll(r)
	must.ErrorIs(t, err, context.Canceled)
}

func TestAllocFS_BadLogArguments(t *testing.T) {
	cases := []struct {
		name, task, logType, origin string
		offset                      int64
		err                         string
	}{
		{"no task", "", "stdout", "start", 0, "a task name is required"},
		{"bad type", "maxrun", "stdin", "start", 0, `log type "stdin" is not stdout or stderr`},
		{"bad origin", "maxrun", "stdout", "middle", 0, `origin "middle" is not start or end`},
		{"negative offset", "maxrun", "stdout", "end", -1, "offset -1 is negative"},
	}
	c := newTestClient(t, "127.0.0.1:1")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.AllocFS().LogsPlain(context.Background(), "a1", tc.task, tc.logType, tc.origin, tc.offset, false)
			must.ErrorContains(t, err, tc.err)

			frames, errCh := c.AllocFS().Logs(&Allocation{ID: "a1"}, false, tc.task, tc.logType, tc.origin, tc.offset, nil, nil)
			must.Nil(t, frames)
			must.ErrorContains(t, <-errCh, tc.err)
		})
	}
}

func TestAllocFS_NilAllocation(t *testing.T) {
	c := newTestClient(t, "127.0.0.1:1")
	_, _, err := c.AllocFS().List(nil, "/", nil)
	must.ErrorIs(t, err, errNilAlloc)
	_, err = c.AllocFS().Cat(nil, "/", nil)
	must.ErrorIs(t, err, errNilAlloc)
	_, errCh := c.AllocFS().Logs(nil, false, "t", "stdout", "", 0, nil, nil)
	must.ErrorIs(t, <-errCh, errNilAlloc)
}

func TestStreamFrame_IsHeartbeat(t *testing.T) {
	must.True(t, (&StreamFrame{}).IsHeartbeat())
	must.False(t, (&StreamFrame{Data: []byte("x")}).IsHeartbeat())
	must.False(t, (&StreamFrame{FileEvent: "file deleted"}).IsHeartbeat())
	must.False(t, (&StreamFrame{Offset: 1}).IsHeartbeat())
}
