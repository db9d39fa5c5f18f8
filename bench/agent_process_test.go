package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/e2e/agentproc"
	"github.com/drover-io/drover/internal/waitfor"
)

// The client benchmarks run the real agent binary, built once per test
// binary, as a separate process on loopback ports (see e2e/agentproc), and
// drive it over HTTP as a user would.

// agentProc is an agent process under test, with the HTTP helpers the
// benchmarks share.
type agentProc struct {
	*agentproc.Agent
	b *testing.B
}

// startAgent starts `drover agent` with args plus free HTTP and RPC ports
// (or the given ones), logging to a file in dir. The process, and every
// task it started that is still running, is killed when the benchmark ends.
func startAgent(b *testing.B, dir string, httpPort, rpcPort int, args ...string) *agentProc {
	b.Helper()
	a := agentproc.Start(b, agentproc.Options{Dir: dir, HTTPPort: httpPort, RPCPort: rpcPort, Args: args})
	return &agentProc{Agent: a, b: b}
}

// kill sends SIGKILL to the agent alone: its tasks and their supervisors
// live on, as after a crash.
func (p *agentProc) kill() { p.Kill() }

// stop stops the agent gracefully (a dev agent stops its tasks), then
// kills whatever it left behind.
func (p *agentProc) stop() { p.Stop() }

var httpClient = &http.Client{Timeout: 30 * time.Second}

// getJSON GETs path and decodes the JSON answer into out.
func (p *agentProc) getJSON(path string, out any) error {
	resp, err := httpClient.Get(p.Addr + path)
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
	req, err := http.NewRequest(http.MethodPut, p.Addr+"/v1/jobs", bytes.NewReader(body))
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

// waitUntil waits, trying every gap, until cond holds, failing after
// timeout with the last error cond gave.
func (p *agentProc) waitUntil(what string, gap, timeout time.Duration, cond func() (bool, error)) {
	p.b.Helper()
	waitfor.NoError(p.b, what, func() error {
		ok, err := cond()
		switch {
		case ok:
			return nil
		case err == nil:
			return errors.New("not yet")
		}
		return err
	}, wait.Gap(gap), wait.Timeout(timeout))
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

// descendants lists the IDs of the processes below pid.
func descendants(pid int) []int {
	return agentproc.Pids(agentproc.Descendants(pid))
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
