package agent

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/command/agent/httpserver"
	"github.com/drover-io/drover/internal/waitfor"
)

// needFiles raises the soft limit on open files to what the test needs,
// up to the hard limit, and fails when even that is too low: the test's
// own client connections and the agent's side of them all count.
func needFiles(t *testing.T, n uint64) {
	t.Helper()
	var lim syscall.Rlimit
	must.NoError(t, syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim))
	if lim.Cur >= n {
		return
	}
	must.True(t, lim.Max >= n, must.Sprintf("the test needs %d open files; the hard limit is %d (ulimit -Hn)", n, lim.Max))
	old := lim.Cur
	lim.Cur = n
	must.NoError(t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim))
	t.Cleanup(func() {
		lim.Cur = old
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	})
}

// dialFrom connects to addr from the loopback address local (127.0.0.2,
// say), which Linux routes like 127.0.0.1: a second client machine.
func dialFrom(t *testing.T, local, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Timeout: 10 * time.Second}
	conn, err := d.Dial("tcp", addr)
	must.NoError(t, err)
	return conn
}

// medianLatency requests /v1/agent/self n times, each on a new
// connection from 127.0.0.1, and returns the median and the slowest.
func medianLatency(t *testing.T, a *Agent, n int) (median, slowest time.Duration) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}
	samples := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		resp, err := client.Get("http://" + a.HTTPAddr() + "/v1/agent/self")
		must.NoError(t, err)
		_, err = io.Copy(io.Discard, resp.Body)
		must.NoError(t, err)
		resp.Body.Close()
		must.Eq(t, http.StatusOK, resp.StatusCode)
		samples = append(samples, time.Since(start))
	}
	slices.Sort(samples)
	return samples[n/2], samples[n-1]
}

// Class 4: a few thousand connections that never finished their request
// held every file descriptor, and the agent stopped answering. With no
// cap per client, 1,000 such connections from one address leave the agent
// answering another address at once, and the timeouts cut them all.
func TestOverload_slowClientsDoNotStallTheAgent(t *testing.T) {
	const slow = 1000
	needFiles(t, 2*slow+500)
	a := testAgent(t, func(c *config.Config) {
		c.Limits.HTTPMaxConnsPerClient = 0
		c.Limits.HTTPReadHeaderTimeout = 2 * time.Second
		c.Limits.HTTPReadTimeout = 3 * time.Second
	})
	addr := a.HTTPAddr()

	start := time.Now()
	conns := make([]net.Conn, slow)
	for i := range conns {
		conn := dialFrom(t, "127.0.0.2", addr)
		conns[i] = conn
		if i%2 == 0 {
			// Headers that never end.
			fmt.Fprint(conn, "GET /v1/agent/self HTTP/1.1\r\nHost: drover\r\nX-Slow: ")
		} else {
			// A body that never comes.
			fmt.Fprint(conn, "PUT /v1/jobs HTTP/1.1\r\nHost: drover\r\nContent-Length: 1000000\r\n\r\n{\"Job\":")
		}
	}
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	held := time.Since(start)
	t.Logf("%d slow connections opened in %s", slow, held)

	// While they are held (the first are cut after two seconds; the
	// requests below take milliseconds), another address is served at
	// once: the median of 21 requests, generous for a loaded machine.
	median, slowest := medianLatency(t, a, 21)
	t.Logf("/v1/agent/self from 127.0.0.1: median %s, slowest %s", median, slowest)
	must.Less(t, 100*time.Millisecond, median)

	// Every slow connection is closed by the agent within its timeout
	// and a margin; none is left holding a descriptor.
	var wg sync.WaitGroup
	closedAfter := make([]time.Duration, slow)
	for i, conn := range conns {
		wg.Go(func() {
			_ = conn.SetReadDeadline(time.Now().Add(60 * time.Second))
			_, _ = io.Copy(io.Discard, conn)
			closedAfter[i] = time.Since(start)
		})
	}
	wg.Wait()
	last := slices.Max(closedAfter)
	t.Logf("the last slow connection was closed %s after the first was opened", last)
	must.Less(t, 30*time.Second, last, must.Sprint("the agent must close slow connections at its timeouts, not keep them"))
	must.Greater(t, 2*time.Second-100*time.Millisecond, slices.Min(closedAfter))
	mustStillAnswer(t, a)
}

// Past its cap, a client's connection is answered 429 naming the limit and
// closed; other clients, and the same client once it closes one, are
// served.
func TestOverload_connectionCapPerClient(t *testing.T) {
	const limit = 10
	a := testAgent(t, func(c *config.Config) { c.Limits.HTTPMaxConnsPerClient = limit })
	addr := a.HTTPAddr()

	held := make([]net.Conn, limit)
	for i := range held {
		held[i] = dialFrom(t, "127.0.0.2", addr)
	}
	t.Cleanup(func() {
		for _, c := range held {
			c.Close()
		}
	})
	// The agent accepts in order, so once a request on the last held
	// connection is answered, all of them count.
	fmt.Fprint(held[limit-1], "GET /v1/agent/self HTTP/1.1\r\nHost: drover\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(held[limit-1]), nil)
	must.NoError(t, err)
	must.Eq(t, http.StatusOK, resp.StatusCode)
	resp.Body.Close()

	over := dialFrom(t, "127.0.0.2", addr)
	defer over.Close()
	_ = over.SetReadDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprint(over, "GET /v1/agent/self HTTP/1.1\r\nHost: drover\r\n\r\n")
	refused, err := io.ReadAll(over)
	must.NoError(t, err)
	must.StrHasPrefix(t, "HTTP/1.1 429 Too Many Requests\r\n", string(refused))
	must.StrContains(t, string(refused), "too many connections from your address: the limit is 10 at once (limits.http_max_conns_per_client)")

	mustStillAnswer(t, a) // from 127.0.0.1

	held[0].Close()
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}
			return d.DialContext(ctx, network, addr)
		},
	}}
	// The agent notices the close when it next reads that connection.
	waitfor.True(t, "a closed connection's place given back", func() bool {
		resp, err := client.Get("http://" + addr + "/v1/agent/self")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, wait.Gap(50*time.Millisecond))
}

// Blocking queries and streams outlive the write and read timeouts, which
// count from a request's start; an ordinary request that takes longer is
// cut. The handler here stands in for a stream: it writes, waits, and
// writes again.
func TestOverload_longLivedRoutesAreExemptFromTheTimeouts(t *testing.T) {
	a := testAgent(t, func(c *config.Config) {
		c.Limits.HTTPWriteTimeout = time.Second
		c.Limits.HTTPReadTimeout = time.Second
	})
	slow := func(w http.ResponseWriter, r *http.Request) (any, error) {
		for range 3 {
			select {
			case <-r.Context().Done():
				return nil, r.Context().Err()
			case <-time.After(time.Second):
			}
			fmt.Fprintln(w, "tick")
			_ = http.NewResponseController(w).Flush()
		}
		return nil, nil
	}
	a.http.Handle(httpserver.NewRoute("GET /test/stream", public, slow, httpserver.LongLived))
	a.http.Handle(httpserver.NewRoute("GET /test/ordinary", public, slow))

	resp := do(t, a, http.MethodGet, "/test/stream", nil)
	must.Eq(t, http.StatusOK, resp.code)
	must.Eq(t, "tick\ntick\ntick\n", resp.String())

	must.False(t, fullAnswer(a.HTTPAddr()+"/test/ordinary", "tick\ntick\ntick\n"),
		must.Sprint("an ordinary route must be cut at the write timeout"))

	// A blocking query waits out its ?wait, three times the timeouts. It
	// blocks on a list that was written to (one at index 0 answers at
	// once) and that nothing else writes: a job's list would move when the
	// scheduler handles its evaluation, and end the wait early.
	resp = do(t, a, http.MethodPut, "/v1/namespace/listed", api.Namespace{Name: "listed"})
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	index := do(t, a, http.MethodGet, "/v1/namespaces", nil).header.Get("X-Nomad-Index")
	start := time.Now()
	resp = do(t, a, http.MethodGet, "/v1/namespaces?wait=3s&index="+index, nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	must.Greater(t, 2900*time.Millisecond, time.Since(start))
}

// fullAnswer reports whether GET url answers 200 with exactly want.
func fullAnswer(url, want string) bool {
	resp, err := http.Get("http://" + url)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return err == nil && resp.StatusCode == http.StatusOK && string(body) == want
}

// The event stream outlives the read and write timeouts: an event written
// after both have passed still reaches a subscriber.
func TestOverload_eventStreamOutlivesTheTimeouts(t *testing.T) {
	a := testAgent(t, func(c *config.Config) {
		c.Limits.HTTPWriteTimeout = time.Second
		c.Limits.HTTPReadTimeout = time.Second
	})
	resp, err := http.Get("http://" + a.HTTPAddr() + "/v1/event/stream?topic=Job")
	must.NoError(t, err)
	defer resp.Body.Close()
	must.Eq(t, http.StatusOK, resp.StatusCode)

	time.Sleep(2500 * time.Millisecond) // past both timeouts, on purpose
	registerJob(t, a, batchJobJSON("after-the-timeouts"))

	lines := bufio.NewScanner(resp.Body)
	found := make(chan bool, 1)
	go func() {
		for lines.Scan() {
			if strings.Contains(lines.Text(), "after-the-timeouts") {
				found <- true
				return
			}
		}
		found <- false
	}()
	select {
	case ok := <-found:
		must.True(t, ok, must.Sprint("the stream ended before the event"))
	case <-time.After(20 * time.Second):
		t.Fatal("no event within 20s")
	}
}

// Decoding a job of megabytes costs many times that in memory: the routes
// that do are heavy, which only so many requests run at once (see
// httpserver's TestServer_heavyRequestsRunAFewAtATime), and a client that
// sends its body slowly holds no place.
func TestOverload_heavyRequestsRunAFewAtATime(t *testing.T) {
	a := testAgent(t)
	heavy := map[string]bool{}
	for _, rt := range a.http.Routes() {
		if rt.Heavy {
			heavy[rt.Method+" "+rt.Path] = true
		}
	}
	for _, route := range []string{"PUT /v1/jobs", "POST /v1/jobs", "PUT /v1/jobs/parse", "PUT /v1/validate/job",
		"PUT /v1/job/{id}", "PUT " + jobPlanPath} {
		must.True(t, heavy[route], must.Sprintf("%s is not heavy", route))
	}

	slots := 2 * runtime.GOMAXPROCS(0)
	// More slow senders than slots: none of them holds one.
	for range slots + 2 {
		conn := dialFrom(t, "127.0.0.2", a.HTTPAddr())
		t.Cleanup(func() { conn.Close() })
		fmt.Fprint(conn, "PUT /v1/jobs HTTP/1.1\r\nHost: drover\r\nContent-Length: 100000\r\n\r\n{\"Job\":")
	}
	registerJob(t, a, batchJobJSON("served"))
}
