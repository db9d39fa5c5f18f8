package taskrunner

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// http_max_size stops a download past it with an error, whether the
// server announces the size or not, and nothing reaches the task.
func TestFetchArtifact_HTTPMaxSize(t *testing.T) {
	body := bytes.Repeat([]byte("x"), 2_000_000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked.bin" {
			// Flushed before it ends: no Content-Length.
			w.(http.Flusher).Flush()
		} else {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)

	cases := map[string]string{
		"/sized.bin":   "is 2 MB, more than 1 MB (the client's artifact http_max_size)",
		"/chunked.bin": "the download is more than 1 MB (the client's artifact http_max_size)",
	}
	for path, want := range cases {
		t.Run(path, func(t *testing.T) {
			td := newTaskDirEnv(t)
			f := limitedFetcher(t, ArtifactConfig{HTTPMaxSize: 1_000_000})
			err := fetchArtifact(context.Background(), f, &structs.TaskArtifact{GetterSource: srv.URL + path}, td.env, td.dir, nil)
			must.ErrorIs(t, err, ErrArtifactTooLarge)
			must.ErrorContains(t, err, want)
			must.FileNotExists(t, filepath.Join(td.dir.LocalDir, filepath.Base(path)))
		})
	}

	t.Run("at the limit", func(t *testing.T) {
		td := newTaskDirEnv(t)
		f := limitedFetcher(t, ArtifactConfig{HTTPMaxSize: int64(len(body))})
		must.NoError(t, fetchArtifact(context.Background(), f, &structs.TaskArtifact{GetterSource: srv.URL + "/sized.bin"}, td.env, td.dir, nil))
		must.Eq(t, len(body), len(readFile(t, filepath.Join(td.dir.LocalDir, "sized.bin"))))
	})
}

// stallTransport answers with a body that sends a few bytes and then
// nothing until the request is cancelled.
type stallTransport struct{}

func (stallTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusOK, ContentLength: -1, Request: req,
		Body: &stallBody{ctx: req.Context(), head: []byte("partial")}}, nil
}

type stallBody struct {
	ctx  context.Context
	head []byte
}

func (b *stallBody) Read(p []byte) (int, error) {
	if len(b.head) > 0 {
		n := copy(p, b.head)
		b.head = b.head[n:]
		return n, nil
	}
	<-b.ctx.Done()
	return 0, b.ctx.Err()
}

func (*stallBody) Close() error { return nil }

// http_read_timeout ends a download that stalls, at the timeout.
func TestFetchArtifact_HTTPReadTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		td := newTaskDirEnv(t)
		f := newArtifactFetcher(&ArtifactConfig{HTTPReadTimeout: 5 * time.Minute})
		f.verified.Transport = stallTransport{}
		start := time.Now()
		err := fetchArtifact(context.Background(), f, &structs.TaskArtifact{GetterSource: "https://artifacts.example/slow.bin"}, td.env, td.dir, nil)
		must.True(t, errors.Is(err, context.DeadlineExceeded), must.Sprintf("got %v", err))
		must.Eq(t, 5*time.Minute, time.Since(start))
		must.FileNotExists(t, filepath.Join(td.dir.LocalDir, "slow.bin"))
	})
}
