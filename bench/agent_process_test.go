package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The client benchmarks run the real agent binary, built once per test
// binary, as a separate process on loopback ports, and drive it over HTTP
// as a user would.

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// droverBinary builds the agent binary into a temporary directory, once.
func droverBinary(b *testing.B) string {
	b.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "drover-bench-bin")
		if err != nil {
			buildErr = err
			return
		}
		goBin, err := exec.LookPath("go")
		if err != nil {
			goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		buildPath = filepath.Join(dir, "drover")
		cmd := exec.Command(goBin, "build", "-trimpath", "-o", buildPath, "github.com/drover-io/drover")
		// A static binary: every raw_exec task's supervisor is this
		// binary, and without libc and its threads each one is some
		// 150 KiB smaller.
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		b.Fatal(buildErr)
	}
	return buildPath
}

// freeLoopbackPort returns a TCP port on 127.0.0.1 that is free now.
func freeLoopbackPort(b *testing.B) int {
	b.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// agentProc is an agent process under test.
type agentProc struct {
	b       *testing.B
	cmd     *exec.Cmd
	addr    string // HTTP base URL
	logPath string
	started time.Time
	done    chan struct{}
}

// startAgent starts `drover agent` with args plus free HTTP and RPC ports
// (or the given ones), logging to a file in dir. The process, and every
// task it started that is still running, is killed when the benchmark ends.
func startAgent(b *testing.B, dir string, httpPort, rpcPort int, args ...string) *agentProc {
	b.Helper()
	if httpPort == 0 {
		httpPort = freeLoopbackPort(b)
	}
	if rpcPort == 0 {
		rpcPort = freeLoopbackPort(b)
	}
	bin := droverBinary(b)
	logPath := filepath.Join(dir, fmt.Sprintf("agent-%d.log", time.Now().UnixNano()))
	logFile, err := os.Create(logPath)
	if err != nil {
		b.Fatal(err)
	}
	full := append([]string{"agent", "-http-port", strconv.Itoa(httpPort), "-rpc-port", strconv.Itoa(rpcPort)}, args...)
	cmd := exec.Command(bin, full...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	p := &agentProc{b: b, cmd: cmd, addr: fmt.Sprintf("http://127.0.0.1:%d", httpPort), logPath: logPath, done: make(chan struct{})}
	p.started = time.Now()
	if err := cmd.Start(); err != nil {
		logFile.Close()
		b.Fatal(err)
	}
	go func() {
		_ = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	b.Cleanup(p.stop)
	return p
}

// kill sends SIGKILL to the agent alone: its tasks and their supervisors
// live on, as after a crash.
func (p *agentProc) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// stop stops the agent gracefully (a dev agent stops its tasks), then
// kills whatever it left behind.
func (p *agentProc) stop() {
	tasks := descendants(p.cmd.Process.Pid)
	select {
	case <-p.done:
	default:
		_ = p.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-p.done:
		case <-time.After(20 * time.Second):
			_ = p.cmd.Process.Signal(syscall.SIGKILL)
			<-p.done
		}
	}
	killAll(tasks)
}

// logTail is the end of the agent's log, for failure messages.
func (p *agentProc) logTail() string {
	data, _ := os.ReadFile(p.logPath)
	if len(data) > 4000 {
		data = data[len(data)-4000:]
	}
	return string(data)
}

var httpClient = &http.Client{Timeout: 30 * time.Second}

// getJSON GETs path and decodes the JSON answer into out.
func (p *agentProc) getJSON(path string, out any) error {
	resp, err := httpClient.Get(p.addr + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("GET %s: %s: %s", path, resp.Status, bytes.TrimSpace(body))
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// registerJob registers a job given as wire JSON.
func (p *agentProc) registerJob(job map[string]any) error {
	body, err := json.Marshal(map[string]any{"Job": job})
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPut, p.addr+"/v1/jobs", bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("register %v: %s: %s", job["ID"], resp.Status, bytes.TrimSpace(msg))
	}
	return nil
}

// waitUntil polls cond every gap until it holds, failing after timeout.
func (p *agentProc) waitUntil(what string, gap, timeout time.Duration, cond func() (bool, error)) {
	p.b.Helper()
	deadline := time.Now().Add(timeout)
	var lastErr error
	for {
		ok, err := cond()
		if ok {
			return
		}
		if err != nil {
			lastErr = err
		}
		if time.Now().After(deadline) {
			p.b.Fatalf("timed out waiting for %s (last error: %v)\nagent log:\n%s", what, lastErr, p.logTail())
		}
		time.Sleep(gap)
	}
}

// nodeReady reports whether the agent has a leader and a ready node.
func (p *agentProc) nodeReady() (bool, error) {
	var leader string
	if err := p.getJSON("/v1/status/leader", &leader); err != nil || leader == "" {
		return false, err
	}
	var nodes []struct{ Status string }
	if err := p.getJSON("/v1/nodes", &nodes); err != nil {
		return false, err
	}
	return len(nodes) > 0 && nodes[0].Status == "ready", nil
}

// allocStub is what the benchmarks read of an allocation list.
type allocStub struct {
	ID           string
	JobID        string
	ClientStatus string
	TaskStates   map[string]struct {
		State  string
		Failed bool
	}
}

func (p *agentProc) allocs(prefix string) ([]allocStub, error) {
	var stubs []allocStub
	if err := p.getJSON("/v1/allocations", &stubs); err != nil {
		return nil, err
	}
	out := stubs[:0]
	for _, s := range stubs {
		if strings.HasPrefix(s.JobID, prefix) {
			out = append(out, s)
		}
	}
	return out, nil
}

// rawExecJob is a job of count allocations of one raw_exec task, as wire
// JSON.
func rawExecJob(id, jobType string, count int, cpu, memoryMB int, command string, args ...string) map[string]any {
	return map[string]any{
		"ID": id, "Name": id, "Type": jobType, "Datacenters": []string{"dc1"},
		"TaskGroups": []any{map[string]any{
			"Name": "g", "Count": count,
			"Tasks": []any{map[string]any{
				"Name": "t", "Driver": "raw_exec",
				"Config":    map[string]any{"command": command, "args": args},
				"Resources": map[string]any{"CPU": cpu, "MemoryMB": memoryMB},
			}},
		}},
	}
}

// descendants lists the processes below pid, found through /proc.
func descendants(pid int) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(data)
		end := strings.LastIndexByte(s, ')')
		if end < 0 {
			continue
		}
		f := strings.Fields(s[end+1:])
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], p)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		next := queue[0]
		queue = queue[1:]
		for _, c := range children[next] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// memKiB reads a field ("Pss", "Rss") of a process's smaps_rollup, in KiB.
func memKiB(pid int, field string) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), field+":")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) > 0 {
			n, _ := strconv.ParseInt(fields[0], 10, 64)
			return n
		}
	}
	return 0
}

// treePSS is the proportional set size of pid and every process below it,
// in KiB.
func treePSS(pid int) int64 {
	total := memKiB(pid, "Pss")
	for _, c := range descendants(pid) {
		total += memKiB(c, "Pss")
	}
	return total
}
