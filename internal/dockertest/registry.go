package dockertest

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
)

// Registry is an in-process OCI registry on 127.0.0.1, which the engine
// pulls from over plain HTTP (it treats loopback registries as
// insecure). Blobs can be served slowly to make a pull outlast a budget.
type Registry struct {
	// Host is host:port, the prefix of the registry's image references.
	Host string

	handler http.Handler
	srv     *http.Server

	mu        sync.Mutex
	throttles map[string]*Throttle // by blob digest ("sha256:...")
}

// NewRegistry starts a registry that stops when the test ends.
func NewRegistry(t testing.TB) *Registry {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("registry: listen: %v", err)
	}
	r := &Registry{
		Host:      ln.Addr().String(),
		handler:   registry.New(registry.Logger(nullLogger())),
		throttles: map[string]*Throttle{},
	}
	r.srv = &http.Server{Handler: http.HandlerFunc(r.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := r.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("registry: %v", err)
		}
	}()
	t.Cleanup(func() { r.srv.Close() })
	return r
}

// Throttle serves the blob with the given digest at bytesPerSecond from
// now on, and reports how its downloads went.
func (r *Registry) Throttle(digest string, bytesPerSecond int) *Throttle {
	th := &Throttle{rate: bytesPerSecond, started: make(chan struct{}), closed: make(chan struct{})}
	r.mu.Lock()
	r.throttles[digest] = th
	r.mu.Unlock()
	return th
}

func (r *Registry) serve(w http.ResponseWriter, req *http.Request) {
	if req.Method == http.MethodGet && strings.Contains(req.URL.Path, "/blobs/") {
		digest := req.URL.Path[strings.LastIndex(req.URL.Path, "/")+1:]
		r.mu.Lock()
		th := r.throttles[digest]
		r.mu.Unlock()
		if th != nil {
			th.serve(w, req, r.handler)
			return
		}
	}
	r.handler.ServeHTTP(w, req)
}

// Throttle is a blob served slowly, and what became of its downloads.
type Throttle struct {
	rate int

	startOnce, closeOnce sync.Once
	started, closed      chan struct{}

	mu        sync.Mutex
	closedAt  time.Time
	downloads int
	sent      int64
	size      int64
	complete  bool
}

// Started is closed once a download of the blob has begun.
func (th *Throttle) Started() <-chan struct{} { return th.started }

// Closed is closed once a download was cut off by the client, before the
// whole blob was sent.
func (th *Throttle) Closed() <-chan struct{} { return th.closed }

// Downloads reports how many downloads of the blob began.
func (th *Throttle) Downloads() int {
	th.mu.Lock()
	defer th.mu.Unlock()
	return th.downloads
}

// Progress reports the bytes sent of the last download, the blob's size,
// and whether any download was sent in full.
func (th *Throttle) Progress() (sent, size int64, complete bool) {
	th.mu.Lock()
	defer th.mu.Unlock()
	return th.sent, th.size, th.complete
}

// serve sends the blob, as the registry would, rate bytes a second in
// small chunks, and stops when the client goes away.
func (th *Throttle) serve(w http.ResponseWriter, req *http.Request, h http.Handler) {
	rec := &bufferedResponse{header: http.Header{}}
	h.ServeHTTP(rec, req)
	if rec.status != 0 && rec.status != http.StatusOK {
		w.WriteHeader(rec.status)
		w.Write(rec.body)
		return
	}
	th.startOnce.Do(func() { close(th.started) })
	th.mu.Lock()
	th.downloads++
	th.sent, th.size = 0, int64(len(rec.body))
	th.mu.Unlock()

	for k, v := range rec.header {
		w.Header()[k] = v
	}
	w.WriteHeader(http.StatusOK)
	const tick = 50 * time.Millisecond
	chunk := max(1, th.rate/int(time.Second/tick))
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	body := rec.body
	for {
		n := min(chunk, len(body))
		if _, err := w.Write(body[:n]); err != nil {
			th.cutOff()
			return
		}
		w.(http.Flusher).Flush()
		body = body[n:]
		th.mu.Lock()
		th.sent += int64(n)
		th.mu.Unlock()
		if len(body) == 0 {
			break
		}
		select {
		case <-ticker.C:
		case <-req.Context().Done():
			th.cutOff()
			return
		}
	}
	th.mu.Lock()
	th.complete = true
	th.mu.Unlock()
}

func (th *Throttle) cutOff() {
	th.closeOnce.Do(func() {
		th.mu.Lock()
		th.closedAt = time.Now()
		th.mu.Unlock()
		close(th.closed)
	})
}

// ClosedAt is when the client first cut a download off, or zero.
func (th *Throttle) ClosedAt() time.Time {
	th.mu.Lock()
	defer th.mu.Unlock()
	return th.closedAt
}

// bufferedResponse holds what the registry would have sent.
type bufferedResponse struct {
	header http.Header
	status int
	body   []byte
}

func (b *bufferedResponse) Header() http.Header { return b.header }

func (b *bufferedResponse) WriteHeader(status int) {
	if b.status == 0 {
		b.status = status
	}
}

func (b *bufferedResponse) Write(p []byte) (int, error) {
	b.body = append(b.body, p...)
	return len(p), nil
}
