package agent

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/drover-io/drover/api"
	"github.com/drover-io/drover/command/agent/config"
	"github.com/drover-io/drover/internal/waitfor"
	"github.com/drover-io/drover/nomad/logentry"
	"github.com/drover-io/drover/structs"
)

// testEncryptKey is the encrypt key of test servers that form a cluster.
const testEncryptKey = "ZHJvdmVyIHRlc3QgY2x1c3RlciBrZXksIDMyIGJ5dGU="

// testRegistrationSecret is the registration secret of testEncryptKey.
const testRegistrationSecret = "jCLBPDVLCqOazk9EnZzjNotibq+h7RLZKOIbbBTHyk4="

// testAgent starts a dev-mode agent (server only) on 127.0.0.1 with free
// ports, waits for its server to lead and to have written the keyring's
// first key (leadership's last write, made after it is announced: a test
// that compares raft indexes must not see it land), and stops it when the
// test ends.
func testAgent(t *testing.T, mutate ...func(*config.Config)) *Agent {
	t.Helper()
	cfg := config.DevConfig()
	cfg.Ports = config.Ports{HTTP: 0, RPC: 0}
	cfg.NodeName = "test-agent"
	cfg.Client.Enabled = false
	cfg.Telemetry.CollectionInterval = 100 * time.Millisecond
	for _, m := range mutate {
		m(cfg)
	}
	logger := hclog.New(&hclog.LoggerOptions{
		Name:   "agent",
		Level:  hclog.Warn,
		Output: testLogWriter{t},
	})
	a, err := NewAgent(cfg, logger)
	must.NoError(t, err)
	t.Cleanup(func() { must.NoError(t, a.Shutdown()) })

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	must.NoError(t, a.Server().WaitForLeader(ctx))
	waitfor.True(t, "the keyring's first key", func() bool {
		key, err := a.Server().State().ActiveRootKey(nil)
		must.NoError(t, err)
		return key != nil
	}, wait.Timeout(20*time.Second))
	return a
}

// testLogWriter sends log lines to the test's log.
type testLogWriter struct{ t *testing.T }

func (w testLogWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// response is what a test request got back.
type response struct {
	code   int
	header http.Header
	body   []byte
}

func (r response) String() string { return string(r.body) }

// do sends a request to the agent's HTTP API. body is sent as is when it is
// a string or []byte, else encoded as JSON.
func do(t *testing.T, a *Agent, method, path string, body any) response {
	t.Helper()
	return doAs(t, a, "", method, path, body)
}

// doAs is do with the ACL secret as X-Nomad-Token ("" sends none).
func doAs(t *testing.T, a *Agent, secret, method, path string, body any) response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		must.NoError(t, err)
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, agentURL(a)+path, rd)
	must.NoError(t, err)
	if secret != "" {
		req.Header.Set(headerToken, secret)
	}
	resp, err := agentHTTPClient(a).Do(req)
	must.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	must.NoError(t, err)
	return response{code: resp.StatusCode, header: resp.Header, body: data}
}

// agentURL is the base URL of the agent's HTTP API.
func agentURL(a *Agent) string {
	if a.config.TLS.HTTP {
		return "https://" + a.HTTPAddr()
	}
	return "http://" + a.HTTPAddr()
}

// agentHTTPClient reaches the agent's HTTP API: over HTTPS when it serves
// that, trusting its CA and presenting its own certificate.
func agentHTTPClient(a *Agent) *http.Client {
	if !a.config.TLS.HTTP {
		return http.DefaultClient
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{
		RootCAs:      a.tls.CAs,
		Certificates: []tls.Certificate{a.tls.Cert},
		MinVersion:   tls.VersionTLS12,
	}}}
}

// get is do for a GET that must succeed, decoding the JSON answer into out.
func get(t *testing.T, a *Agent, path string, out any) response {
	t.Helper()
	resp := do(t, a, http.MethodGet, path, nil)
	must.Eq(t, http.StatusOK, resp.code, must.Sprintf("GET %s: %s", path, resp))
	must.Eq(t, "application/json", resp.header.Get("Content-Type"))
	if out != nil {
		must.NoError(t, json.Unmarshal(resp.body, out), must.Sprintf("GET %s: %s", path, resp))
	}
	return resp
}

// batchJobJSON is a valid batch job as the wire JSON has it, with a
// max_run_duration of 10s on its group.
func batchJobJSON(id string) map[string]any {
	return map[string]any{
		"ID":          id,
		"Name":        id,
		"Type":        "batch",
		"Datacenters": []string{"dc1"},
		"TaskGroups": []any{map[string]any{
			"Name":           "maxrun",
			"Count":          1,
			"MaxRunDuration": int64(10 * time.Second),
			"Tasks": []any{map[string]any{
				"Name":   "maxrun",
				"Driver": "raw_exec",
				"Config": map[string]any{"command": "/bin/sleep", "args": []string{"1000"}},
			}},
		}},
	}
}

// registerJob registers job through PUT /v1/jobs and returns the answer.
func registerJob(t *testing.T, a *Agent, job map[string]any) jobRegisterResponse {
	t.Helper()
	resp := do(t, a, http.MethodPut, "/v1/jobs", map[string]any{"Job": job})
	must.Eq(t, http.StatusOK, resp.code, must.Sprintf("register: %s", resp))
	var out jobRegisterResponse
	must.NoError(t, json.Unmarshal(resp.body, &out))
	return out
}

// ids returns the ID of each item, for assertions that must hold whatever
// else the server (its scheduler) adds.
func ids[T any](items []T, id func(T) string) []string {
	out := make([]string, 0, len(items))
	for _, item := range items {
		out = append(out, id(item))
	}
	return out
}

func allocStubIDs(stubs []*api.AllocationListStub) []string {
	return ids(stubs, func(s *api.AllocationListStub) string { return s.ID })
}

func evalIDsOf(evals []*api.Evaluation) []string {
	return ids(evals, func(e *api.Evaluation) string { return e.ID })
}

// upsertNode registers a ready node through the server.
func upsertNode(t *testing.T, a *Agent, id, name string) *structs.Node {
	t.Helper()
	node := &structs.Node{
		ID:                    id,
		Datacenter:            "dc1",
		Name:                  name,
		HTTPAddr:              "127.0.0.1:4646",
		NodePool:              "default",
		Attributes:            map[string]string{"kernel.name": "linux", structs.NodeAttrVersion: "0.1.0"},
		SchedulingEligibility: structs.NodeSchedulingEligible,
		Status:                structs.NodeStatusReady,
		Drivers:               map[string]*structs.DriverInfo{"raw_exec": {Detected: true, Healthy: true}},
		NodeResources: &structs.NodeResources{
			Cpu:    structs.NodeCpuResources{CpuShares: 4000, TotalCpuCores: 4},
			Memory: structs.NodeMemoryResources{MemoryMB: 8192},
			Disk:   structs.NodeDiskResources{DiskMB: 100000},
		},
	}
	_, err := a.Server().NodeRegister(context.Background(), node)
	must.NoError(t, err)
	return node
}

// upsertAlloc writes an allocation of the stored job through the server.
func upsertAlloc(t *testing.T, a *Agent, id, jobID, evalID, nodeID string) *structs.Allocation {
	t.Helper()
	job, err := a.Server().State().JobByID(nil, structs.DefaultNamespace, jobID)
	must.NoError(t, err)
	must.NotNil(t, job)
	alloc := &structs.Allocation{
		ID:            id,
		Namespace:     job.Namespace,
		EvalID:        evalID,
		Name:          jobID + ".maxrun[0]",
		NodeID:        nodeID,
		JobID:         jobID,
		Job:           job,
		TaskGroup:     "maxrun",
		DesiredStatus: structs.AllocDesiredStatusRun,
		ClientStatus:  structs.AllocClientStatusPending,
		CreateTime:    time.Now().UnixNano(),
	}
	_, err = a.Server().Apply(context.Background(), logentry.MsgAllocUpdate, &logentry.AllocUpdate{Allocs: []*structs.Allocation{alloc}})
	must.NoError(t, err)
	return alloc
}
