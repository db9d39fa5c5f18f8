package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/nomad"
	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/structs"
)

// The tests here send what an attacker on the network would, over the
// agent's real HTTP server, and hold that each is refused with the exact
// status and a message naming the field, its value and the limit, that
// nothing reached raft, and that the agent still answers afterwards.

// mustStillAnswer asserts that the agent serves an ordinary request.
func mustStillAnswer(t *testing.T, a *Agent) {
	t.Helper()
	resp := do(t, a, http.MethodGet, "/v1/agent/self", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
}

// raftIndex is the index of the server's latest applied write.
func raftIndex(t *testing.T, a *Agent) uint64 {
	t.Helper()
	index, err := a.Server().State().LatestIndex()
	must.NoError(t, err)
	return index
}

// heapInUse is the process's live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// cpuTime is the CPU the process has used, user and system.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	must.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// mustIdleAfter asserts that the process uses little CPU over the second
// after a refusal: work that went on without its request (a parse still
// evaluating, a scheduler still placing) would use all of a core.
func mustIdleAfter(t *testing.T) {
	t.Helper()
	before := cpuTime(t)
	time.Sleep(time.Second) // the window measured, not a wait for an event
	used := cpuTime(t) - before
	t.Logf("CPU used in the second after: %s", used)
	must.Less(t, 500*time.Millisecond, used)
}

// Class 1: a count of a billion was accepted, and the scheduling server's
// memory grew until it died, and every new leader's after it.
func TestHostile_countOfABillion(t *testing.T) {
	a := testAgent(t)
	job := batchJobJSON("billion")
	job["TaskGroups"].([]any)[0].(map[string]any)["Count"] = 1_000_000_000
	want := `Task group "maxrun": count 1000000000 is more than the limit of 50000 allocations per job (limits.job_max_count)`

	heapBefore, indexBefore := heapInUse(), raftIndex(t, a)

	resp := do(t, a, http.MethodPut, "/v1/jobs", map[string]any{"Job": job})
	must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
	must.StrContains(t, resp.String(), want)

	resp = do(t, a, http.MethodPut, "/v1/job/billion/plan", map[string]any{"Job": job})
	must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
	must.StrContains(t, resp.String(), want)

	// /v1/validate/job answers 200 for an invalid job, as Nomad's does,
	// with the problem among its ValidationErrors.
	var validated api.JobValidateResponse
	resp = do(t, a, http.MethodPut, "/v1/validate/job", map[string]any{"Job": job})
	must.Eq(t, http.StatusOK, resp.code)
	must.NoError(t, json.Unmarshal(resp.body, &validated))
	must.Eq(t, []string{want}, validated.ValidationErrors)

	must.Eq(t, indexBefore, raftIndex(t, a), must.Sprint("nothing may reach raft"))
	must.Eq(t, http.StatusNotFound, do(t, a, http.MethodGet, "/v1/job/billion", nil).code)
	growth := int64(heapInUse()) - int64(heapBefore)
	t.Logf("heap growth: %d bytes", growth)
	must.Less(t, int64(32<<20), growth)
	mustStillAnswer(t, a)
}

// Class 1 again: a job with 10,000 groups, 5 MB of JSON, grew the server
// past 4 GiB as its allocations were placed.
func TestHostile_tenThousandGroups(t *testing.T) {
	a := testAgent(t)
	job := batchJobJSON("wide")
	group := job["TaskGroups"].([]any)[0].(map[string]any)
	groups := make([]any, 10_000)
	for i := range groups {
		g := make(map[string]any, len(group))
		for k, v := range group {
			g[k] = v
		}
		g["Name"] = fmt.Sprintf("g%05d", i)
		groups[i] = g
	}
	job["TaskGroups"] = groups
	body, err := json.Marshal(map[string]any{"Job": job})
	must.NoError(t, err)
	t.Logf("body: %d bytes", len(body))

	indexBefore := raftIndex(t, a)
	resp := do(t, a, http.MethodPut, "/v1/jobs", body)
	must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
	must.StrContains(t, resp.String(), "Job has 10000 task groups, more than the limit of 1000 (limits.job_max_groups)")
	must.StrContains(t, resp.String(), "more than the limit of 4194304 bytes (limits.job_max_size)")
	must.Eq(t, indexBefore, raftIndex(t, a))
	mustStillAnswer(t, a)
}

func TestHostile_jobSizeAndTasks(t *testing.T) {
	a := testAgent(t, func(c *config.Config) {
		c.Limits.JobMaxSize = 64 << 10
		c.Limits.JobMaxTasksPerGroup = 2
	})
	big := batchJobJSON("big")
	big["Meta"] = map[string]string{"pad": strings.Repeat("x", 70_000)}
	resp := do(t, a, http.MethodPut, "/v1/jobs", map[string]any{"Job": big})
	must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
	must.RegexMatch(t, regexp.MustCompile(`Job is 7\d{4} bytes as JSON, more than the limit of 65536 bytes \(limits\.job_max_size\)`), resp.String())

	// A body above twice the limit is not even read to its end.
	huge := batchJobJSON("huge")
	huge["Meta"] = map[string]string{"pad": strings.Repeat("x", 200_000)}
	resp = do(t, a, http.MethodPut, "/v1/jobs", map[string]any{"Job": huge})
	must.Eq(t, http.StatusRequestEntityTooLarge, resp.code, must.Sprint(resp))
	must.StrContains(t, resp.String(), "request body too large: the limit is 131072 bytes (twice limits.job_max_size)")

	tasks := batchJobJSON("tasks")
	g := tasks["TaskGroups"].([]any)[0].(map[string]any)
	task := g["Tasks"].([]any)[0].(map[string]any)
	var three []any
	for _, name := range []string{"a", "b", "c"} {
		tk := map[string]any{}
		for k, v := range task {
			tk[k] = v
		}
		tk["Name"] = name
		three = append(three, tk)
	}
	g["Tasks"] = three
	resp = do(t, a, http.MethodPut, "/v1/jobs", map[string]any{"Job": tasks})
	must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
	must.StrContains(t, resp.String(), `Task group "maxrun": Group has 3 tasks, more than the limit of 2 (limits.job_max_tasks_per_group)`)
	mustStillAnswer(t, a)
}

// The raw Raft.Apply door, which other servers forward entries through,
// holds a job to the limits too; a stored job beyond them is not
// scheduled (nomad's TestWorker_refusesAStoredJobBeyondTheLimits).
func TestHostile_applyHoldsJobsToTheLimits(t *testing.T) {
	a := testAgent(t)
	job := &structs.Job{
		ID: "stored", Type: structs.JobTypeBatch,
		TaskGroups: []*structs.TaskGroup{{
			Name: "g", Count: 1_000_000_000,
			Tasks: []*structs.Task{{Name: "t", Driver: "raw_exec"}},
		}},
	}
	job.Canonicalize()
	indexBefore := raftIndex(t, a)
	_, err := a.Server().Apply(context.Background(), logentry.MsgJobRegister, &logentry.JobRegister{Job: job})
	must.ErrorIs(t, err, nomad.ErrInvalidRequest)
	must.StrContains(t, err.Error(), `Task group "g": count 1000000000 is more than the limit of 50000 allocations per job (limits.job_max_count)`)
	must.Eq(t, indexBefore, raftIndex(t, a))
	mustStillAnswer(t, a)
}

// parseHCL sends a jobspec to /v1/jobs/parse.
func parseHCL(t *testing.T, a *Agent, hcl string) response {
	t.Helper()
	return do(t, a, http.MethodPut, "/v1/jobs/parse", map[string]any{"JobHCL": hcl})
}

// Class 2: HCL nested 100,000 deep ended the agent with a fatal stack
// overflow inside the parser.
func TestHostile_deeplyNestedHCL(t *testing.T) {
	a := testAgent(t)
	for name, hcl := range map[string]string{
		"brackets":    `job "x" { meta = { a = ` + strings.Repeat("[", 100_000) + ` } }`,
		"parentheses": `job "x" { meta = { a = ` + strings.Repeat("(", 100_000) + ` } }`,
		"templates":   `job "x" { meta = { a = ` + strings.Repeat(`"${`, 50_000) + ` } }`,
	} {
		t.Run(name, func(t *testing.T) {
			resp := parseHCL(t, a, hcl)
			must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
			must.StrContains(t, resp.String(), "Jobspec nested too deeply")
			must.StrContains(t, resp.String(), "more than the limit of 100 (limits.hcl_max_depth)")
			mustStillAnswer(t, a)
		})
	}

	resp := parseHCL(t, a, `job "x" { meta = { a = "`+strings.Repeat("y", 1<<20)+`" } }`)
	must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
	must.StrContains(t, resp.String(), "more than the limit of 1048576 bytes (limits.hcl_max_size)")
	resp = parseHCL(t, a, strings.Repeat("#", 2<<20))
	must.Eq(t, http.StatusRequestEntityTooLarge, resp.code, must.Sprint(resp))
	must.StrContains(t, resp.String(), "request body too large: the limit is 2097152 bytes (twice limits.hcl_max_size)")
	mustStillAnswer(t, a)
}

// nestedFor asks for 10⁹ iterations in a few hundred bytes.
const nestedFor = `job "x" { meta = { a = jsonencode([for a in range(1000) : [for b in range(1000) : [for c in range(1000) : c]]]) } }`

// Class 3: nested for expressions kept a core busy for minutes after the
// client gave up.
func TestHostile_nestedForIsRefusedQuickly(t *testing.T) {
	a := testAgent(t)
	start := time.Now()
	resp := parseHCL(t, a, nestedFor)
	elapsed := time.Since(start)
	must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
	must.StrContains(t, resp.String(), "Evaluating the jobspec takes more than 16000000 units of work, the limit (limits.hcl_max_eval_work)")
	t.Logf("refused after %s", elapsed)
	// Under a second of CPU, measured; generous for a loaded machine, and
	// far below the minutes the unbounded evaluation took.
	must.Less(t, 20*time.Second, elapsed)
	mustIdleAfter(t)
	mustStillAnswer(t, a)
}

// The parse stops when its client goes away, even with a budget that would
// let it run for minutes.
func TestHostile_parseStopsWhenTheClientLeaves(t *testing.T) {
	a := testAgent(t, func(c *config.Config) {
		c.Limits.HCLMaxEvalWork = math.MaxInt64 / 2
		c.Limits.HCLEvalTimeout = time.Hour
	})
	body, err := json.Marshal(map[string]any{"JobHCL": nestedFor})
	must.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, "http://"+a.HTTPAddr()+"/v1/jobs/parse", strings.NewReader(string(body)))
	must.NoError(t, err)
	_, err = http.DefaultClient.Do(req)
	must.ErrorIs(t, err, context.DeadlineExceeded)
	mustIdleAfter(t)
	mustStillAnswer(t, a)
}

// Class 6: IDs with control characters could be registered but then not
// read, stopped or purged, and the CLI printed the escapes.
func TestHostile_unprintableIDs(t *testing.T) {
	a := testAgent(t)
	indexBefore := raftIndex(t, a)
	for name, c := range map[string]struct {
		mutate func(job map[string]any)
		want   string
	}{
		"ESC in the job ID": {func(j map[string]any) { j["ID"], j["Name"] = "evil\x1b[2J", "evil" },
			"Job ID must contain only printable characters, not U+001B at byte 5"},
		"BEL in the job name": {func(j map[string]any) { j["Name"] = "ding\a" },
			"Job name must contain only printable characters, not U+0007 at byte 5"},
		"ESC in a group name": {func(j map[string]any) { j["TaskGroups"].([]any)[0].(map[string]any)["Name"] = "g\x1b" },
			`Name must contain only printable characters, not U+001B at byte 2`},
		"ESC in a namespace": {func(j map[string]any) { j["Namespace"] = "ns\x1b" },
			"Job namespace must contain only printable characters, not U+001B at byte 3"},
		"ESC in a meta key": {func(j map[string]any) { j["Meta"] = map[string]string{"k\x1b": "v"} },
			`meta key "k\x1b" must contain only printable characters, not U+001B at byte 2`},
	} {
		t.Run(name, func(t *testing.T) {
			job := batchJobJSON("ids")
			c.mutate(job)
			resp := do(t, a, http.MethodPut, "/v1/jobs", map[string]any{"Job": job})
			must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
			must.StrContains(t, resp.String(), c.want)
		})
	}
	must.Eq(t, indexBefore, raftIndex(t, a))

	// Every read refuses by the same rule.
	for _, path := range []string{"/v1/job/evil%1B%5B2J", "/v1/job/evil%1B/allocations", "/v1/jobs?prefix=%1B", "/v1/jobs?namespace=ns%07"} {
		resp := do(t, a, http.MethodGet, path, nil)
		must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(path))
		must.StrContains(t, resp.String(), "must contain only printable characters", must.Sprint(path))
	}

	// What is printable, in any script, can be created, read, stopped
	// and purged.
	job := batchJobJSON("tâche-日本")
	registerJob(t, a, job)
	get(t, a, "/v1/job/t%C3%A2che-%E6%97%A5%E6%9C%AC", nil)
	resp := do(t, a, http.MethodDelete, "/v1/job/t%C3%A2che-%E6%97%A5%E6%9C%AC?purge=true", nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprint(resp))
	mustStillAnswer(t, a)
}

// Class 7: a max_run_duration near the int64 maximum was accepted, and
// CreateTime + d wrapped to a deadline in the year 1734.
func TestHostile_durationThatOverflows(t *testing.T) {
	a := testAgent(t)
	job := batchJobJSON("forever")
	job["TaskGroups"].([]any)[0].(map[string]any)["MaxRunDuration"] = int64(math.MaxInt64)
	want := `Task group "maxrun": max_run_duration must be at most 876000h0m0s (100 years), got 2562047h47m16.854775807s`
	for _, path := range []string{"/v1/jobs", "/v1/job/forever/plan"} {
		resp := do(t, a, http.MethodPut, path, map[string]any{"Job": job})
		must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
		must.StrContains(t, resp.String(), want)
	}
	kill := batchJobJSON("killer")
	kill["TaskGroups"].([]any)[0].(map[string]any)["Tasks"].([]any)[0].(map[string]any)["KillTimeout"] = int64(math.MaxInt64)
	resp := do(t, a, http.MethodPut, "/v1/jobs", map[string]any{"Job": kill})
	must.Eq(t, http.StatusBadRequest, resp.code, must.Sprint(resp))
	must.StrContains(t, resp.String(), `kill_timeout must be at most 876000h0m0s (100 years)`)
	mustStillAnswer(t, a)
}
