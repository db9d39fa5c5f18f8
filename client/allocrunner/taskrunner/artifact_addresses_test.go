package taskrunner

import (
	"bytes"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

// secretServer is a real HTTP server on 127.0.0.1, a service meant for
// the client's machine alone, that counts the requests it answers.
func secretServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		io.WriteString(w, "loopback-only secret")
	}))
	t.Cleanup(srv.Close)
	return srv, &requests
}

// mustHoldNothingOf fails when any file under dir holds secret.
func mustHoldNothingOf(t *testing.T, dir, secret string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		must.NoError(t, err)
		must.False(t, bytes.Contains(b, []byte(secret)), must.Sprintf("%s holds the server's answer", p))
		return nil
	})
	must.NoError(t, err)
}

// A client with the default configuration refuses an artifact on a
// loopback address, by its literal address or by a name that resolves to
// it: the server is never asked, nothing of it reaches the allocation's
// files, and the task event names the setting that refused it.
func TestTaskRunner_ArtifactOnLoopbackRefused(t *testing.T) {
	srv, requests := secretServer(t)
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	must.NoError(t, err)

	for _, source := range []string{srv.URL + "/secret.txt", "http://localhost:" + port + "/secret.txt"} {
		t.Run(source, func(t *testing.T) {
			task := testTask("web", map[string]any{"run_for": "1s"})
			task.Artifacts = []*structs.TaskArtifact{{GetterSource: source, RelativeDest: "../alloc/data"}}
			h := newBatchHarness(t, task, func(c *Config) { c.Artifact = nil })
			_, ev := h.waitFailedDownload()
			must.StrHasPrefix(t, "artifact 0 ("+source+"): download: connection to ", ev.DownloadError)
			must.StrHasSuffix(t, " (loopback) refused by the client's policy (the client's artifact address_denylist)", ev.DownloadError)

			must.Eq(t, 0, requests.Load(), must.Sprint("the server was asked"))
			mustHoldNothingOf(t, filepath.Dir(h.taskDir.Dir), "loopback-only secret")
			must.SliceEmpty(t, treeOf(t, filepath.Join(h.taskDir.SharedDir, "data")))
		})
	}
}

// syncBuffer is a log's output that a test may read while the runner
// writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Where an internal address is allowed, a failed download there tells the
// job's author nothing of what listens: a closed port and a service that
// is not HTTP read alike in the task event. The client's log has the
// cause.
func TestTaskRunner_ArtifactFailureAtAnInternalAddressTellsNothing(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	must.NoError(t, err)
	closedAddr := closed.Addr().String()
	closed.Close()

	notHTTP, err := net.Listen("tcp", "127.0.0.1:0")
	must.NoError(t, err)
	var wg sync.WaitGroup
	t.Cleanup(func() {
		notHTTP.Close()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := notHTTP.Accept()
			if err != nil {
				return
			}
			c.Read(make([]byte, 4096))
			io.WriteString(c, "-ERR redis-banner unknown command\r\n")
			c.Close()
		}
	})

	var events []string
	var logs syncBuffer
	for _, addr := range []string{closedAddr, notHTTP.Addr().String()} {
		task := testTask("web", map[string]any{"run_for": "1s"})
		task.Artifacts = []*structs.TaskArtifact{{GetterSource: "http://" + addr + "/x.bin"}}
		h := newBatchHarness(t, task, func(c *Config) {
			c.Logger = hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Warn})
		})
		_, ev := h.waitFailedDownload()
		events = append(events, strings.ReplaceAll(ev.DownloadError, addr, "ADDR"))
	}
	must.Eq(t, "artifact 0 (http://ADDR/x.bin): download: no answer from ADDR (the cause, at an internal address, is in the client's log only)", events[0])
	must.Eq(t, events[0], events[1])
	must.StrContains(t, logs.String(), "connection refused")
	must.StrContains(t, logs.String(), "redis-banner")
}
