package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"
)

// dispatchBenchJobs is how many jobs each half of the dispatch benchmark
// starts.
const dispatchBenchJobs = 50

// BenchmarkDispatch_VersusRegister measures, on one dev agent (a real
// agent process, raw_exec tasks of /bin/true), how fast dispatches of a
// parameterized job start work, beside plain registers of the same job:
// dispatchBenchJobs registers of distinct jobs, all sent at once over
// HTTP, then as many dispatches of one parameterized job with a payload
// and meta, each timed from the first request until every allocation has
// started (running or already complete). It reports jobs per second for
// each, and the ratio.
func BenchmarkDispatch_VersusRegister(b *testing.B) {
	for range b.N {
		p := startAgent(b, b.TempDir(), 0, 0, "-dev")
		p.waitUntil("node ready", pollGap, time.Minute, p.nodeReady)

		registers := p.timeStarted("bench-reg-", func(i int) error {
			return p.registerJob(rawExecJob(fmt.Sprintf("bench-reg-%03d", i), "batch", 1, 20, 16, "/bin/true"))
		})

		parent := rawExecJob("bench-disp", "batch", 1, 20, 16, "/bin/true")
		parent["ParameterizedJob"] = map[string]any{"Payload": "required", "MetaRequired": []string{"n"}}
		tasks := parent["TaskGroups"].([]any)[0].(map[string]any)["Tasks"].([]any)
		tasks[0].(map[string]any)["DispatchPayload"] = map[string]any{"File": "in.json"}
		if err := p.registerJob(parent); err != nil {
			b.Fatal(err)
		}
		dispatches := p.timeStarted("bench-disp/", func(i int) error {
			return p.dispatch("bench-disp", map[string]any{"Payload": []byte(`{"n":1}`), "Meta": map[string]string{"n": fmt.Sprint(i)}})
		})

		regRate := dispatchBenchJobs / registers.Seconds()
		dispRate := dispatchBenchJobs / dispatches.Seconds()
		b.ReportMetric(regRate, "registers/s")
		b.ReportMetric(dispRate, "dispatches/s")
		b.ReportMetric(dispRate/regRate, "dispatch/register")
		b.Logf("%d jobs each, submitted at once until every allocation started: registers %s (%.1f/s), dispatches %s (%.1f/s), ratio %.2f",
			dispatchBenchJobs, registers.Round(time.Millisecond), regRate, dispatches.Round(time.Millisecond), dispRate, dispRate/regRate)
		p.stop()
	}
}

// timeStarted sends dispatchBenchJobs requests at once and returns the
// time from the first until every allocation of a job whose ID starts
// with prefix has started.
func (p *agentProc) timeStarted(prefix string, send func(i int) error) time.Duration {
	p.b.Helper()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, dispatchBenchJobs)
	for i := range dispatchBenchJobs {
		wg.Go(func() { errs <- send(i) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			p.b.Fatal(err)
		}
	}
	p.waitUntil(prefix+" allocations started", pollGap, 2*time.Minute, func() (bool, error) {
		allocs, err := p.allocs(prefix)
		if err != nil || len(allocs) < dispatchBenchJobs {
			return false, err
		}
		for _, a := range allocs {
			switch a.ClientStatus {
			case "running", "complete":
			case "failed":
				return false, fmt.Errorf("alloc %s of %s failed", a.ID, a.JobID)
			default:
				return false, nil
			}
		}
		return true, nil
	})
	return time.Since(start)
}

// dispatch dispatches the parameterized job id with the request body req.
func (p *agentProc) dispatch(id string, req map[string]any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	r, err := http.NewRequest(http.MethodPut, p.Addr+"/v1/job/"+id+"/dispatch", bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := httpClient.Do(r)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("dispatch %s: %s: %s", id, resp.Status, bytes.TrimSpace(msg))
	}
	return nil
}
