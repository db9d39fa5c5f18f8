package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/drover-io/drover/command"
	"github.com/drover-io/drover/e2e/agentproc"
)

// A measured agent is this test binary run again as `drover agent`, with a
// line protocol on two extra pipes through which the benchmark asks it for
// its heap after a garbage collection: the Go heap of one agent process,
// without the benchmark's own allocations in it, which an agent's
// resident set size (the page cache, freed spans not yet returned) would
// blur.

// envMeasuredAgent, when set, makes TestMain run an agent with the
// JSON-encoded arguments it holds instead of the benchmarks.
const envMeasuredAgent = "DROVER_BENCH_MEASURED_AGENT"

// envProfiles, when it names a directory, has each measured agent write
// its heap profile there when measured after the placement, as <who>.heap,
// and its goroutines as <who>.goroutines.
const envProfiles = "DROVER_BENCH_PROFILES"

// heapStats is what a measured agent reports of its heap after a GC.
type heapStats struct {
	// HeapAlloc is the bytes of live objects; HeapInuse, the bytes of the
	// spans that hold them (HeapAlloc plus fragmentation).
	HeapAlloc uint64
	HeapInuse uint64
	// StackInuse is the bytes of goroutine stacks, outside the heap;
	// Goroutines, how many there are.
	StackInuse uint64
	Goroutines int
}

func (h heapStats) String() string {
	return fmt.Sprintf("heap alloc %s, in use %s; stacks %s (%d goroutines)",
		mib(int64(h.HeapAlloc)), mib(int64(h.HeapInuse)), mib(int64(h.StackInuse)), h.Goroutines)
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// runMeasuredAgent is the measured agent's main: it answers each line read
// from file descriptor 3 with its heap statistics, as a JSON line on file
// descriptor 4, while `drover agent` runs.
func runMeasuredAgent(encodedArgs string) int {
	var args []string
	if err := json.Unmarshal([]byte(encodedArgs), &args); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", envMeasuredAgent, err)
		return 2
	}
	if os.Getenv(envProfiles) != "" {
		runtime.MemProfileRate = 4096 // fine enough to see small objects by the thousand
	}
	requests, replies := os.NewFile(3, "heap-requests"), os.NewFile(4, "heap-replies")
	go func() {
		sc := bufio.NewScanner(requests)
		enc := json.NewEncoder(replies)
		for sc.Scan() {
			// Twice: the first collection's finalizers free more, and
			// what sync.Pools hold survives one collection.
			runtime.GC()
			runtime.GC()
			if path, ok := strings.CutPrefix(sc.Text(), "profile "); ok {
				writeHeapProfile(path)
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			h := heapStats{HeapAlloc: ms.HeapAlloc, HeapInuse: ms.HeapInuse, StackInuse: ms.StackInuse, Goroutines: runtime.NumGoroutine()}
			if err := enc.Encode(h); err != nil {
				return
			}
		}
	}()
	return command.Main(append([]string{"agent"}, args...))
}

// writeHeapProfile writes the heap profile to path, for a look at where
// the memory went (go tool pprof), and the goroutines, grouped by stack,
// beside it (path with .goroutines for .heap): each holds a stack.
func writeHeapProfile(path string) {
	write := func(path, profile string, debug int) {
		f, err := os.Create(path)
		if err != nil {
			return
		}
		defer f.Close()
		_ = pprof.Lookup(profile).WriteTo(f, debug)
	}
	write(path, "heap", 0)
	write(strings.TrimSuffix(path, ".heap")+".goroutines", "goroutine", 1)
}

// measuredAgent is a measured agent process.
type measuredAgent struct {
	b        *testing.B
	cmd      *exec.Cmd
	requests io.WriteCloser
	replies  *bufio.Reader
	done     chan struct{}
	logPath  string
	// Addr is its HTTP base URL; RPCAddr, its RPC address.
	Addr    string
	RPCAddr string
}

// startMeasuredAgent runs `drover agent -config <config>` in this binary
// with the given HCL configuration, on free ports.
func startMeasuredAgent(b *testing.B, name, hcl string) *measuredAgent {
	b.Helper()
	dir := b.TempDir()
	config := filepath.Join(dir, name+".hcl")
	if err := os.WriteFile(config, []byte(hcl), 0o644); err != nil {
		b.Fatal(err)
	}
	httpPort, rpcPort := agentproc.FreePort(b), agentproc.FreePort(b)
	args, err := json.Marshal([]string{"-config", config, "-http-port", strconv.Itoa(httpPort), "-rpc-port", strconv.Itoa(rpcPort)})
	if err != nil {
		b.Fatal(err)
	}
	reqR, reqW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	logPath := filepath.Join(dir, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), envMeasuredAgent+"="+string(args))
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.ExtraFiles = []*os.File{reqR, repW}
	if err := cmd.Start(); err != nil {
		b.Fatalf("start measured agent %s: %v", name, err)
	}
	reqR.Close()
	repW.Close()
	a := &measuredAgent{
		b: b, cmd: cmd, requests: reqW, replies: bufio.NewReader(repR), done: make(chan struct{}), logPath: logPath,
		Addr:    fmt.Sprintf("http://127.0.0.1:%d", httpPort),
		RPCAddr: fmt.Sprintf("127.0.0.1:%d", rpcPort),
	}
	go func() {
		_ = cmd.Wait()
		logFile.Close()
		close(a.done)
	}()
	b.Cleanup(a.stop)
	return a
}

// heap asks the agent for its heap after a garbage collection.
func (a *measuredAgent) heap() heapStats {
	a.b.Helper()
	return a.ask("heap")
}

// heapWithProfile is heap, having the agent also write its heap profile to
// path.
func (a *measuredAgent) heapWithProfile(path string) heapStats {
	a.b.Helper()
	return a.ask("profile " + path)
}

func (a *measuredAgent) ask(request string) heapStats {
	a.b.Helper()
	if _, err := io.WriteString(a.requests, request+"\n"); err != nil {
		a.b.Fatalf("ask %s for its heap: %v\n%s", a.Addr, err, a.logTail())
	}
	line, err := a.replies.ReadBytes('\n')
	if err != nil {
		a.b.Fatalf("read the heap of %s: %v\n%s", a.Addr, err, a.logTail())
	}
	var h heapStats
	if err := json.Unmarshal(line, &h); err != nil {
		a.b.Fatalf("decode the heap of %s: %v", a.Addr, err)
	}
	return h
}

// stop stops the agent with SIGTERM, SIGKILL after 30 s.
func (a *measuredAgent) stop() {
	select {
	case <-a.done:
		return
	default:
	}
	a.requests.Close()
	_ = a.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-a.done:
	case <-time.After(30 * time.Second):
		_ = a.cmd.Process.Kill()
		<-a.done
	}
}

func (a *measuredAgent) logTail() string {
	data, _ := os.ReadFile(a.logPath)
	if len(data) > 4000 {
		data = data[len(data)-4000:]
	}
	return string(data)
}

// proc is the agent as the helpers of agent_process_test.go take it.
func (a *measuredAgent) proc() *agentProc {
	return &agentProc{Agent: &agentproc.Agent{Addr: a.Addr}, b: a.b}
}
