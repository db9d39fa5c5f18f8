package taskrunner

import (
	"strconv"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/structs"
)

func testEnv(t *testing.T) (*taskEnv, *structs.Allocation, *allocdir.TaskDir) {
	t.Helper()
	task := testTask("web", nil)
	task.Meta = map[string]string{"tier": "back", "Version": "3"}
	task.Env = map[string]string{
		"GREETING": "hello ${NOMAD_TASK_NAME} in ${node.datacenter}",
		"SHELLY":   "${HOME}/bin",
	}
	task.Resources = &structs.Resources{CPU: 250, MemoryMB: 128, MemoryMaxMB: 256, Cores: 2}
	alloc := testAlloc(structs.JobTypeBatch, task)
	alloc.ID = "8f8c6f0e-3f4b-4c4f-9d7a-2b1e6a7c9d10"
	alloc.Job.ParentID = "parent"
	ad, err := allocdir.New("/data/allocs", alloc.ID)
	must.NoError(t, err)
	td, err := ad.TaskDir("web")
	must.NoError(t, err)
	node := &structs.Node{
		ID: "node-1", Name: "box", Datacenter: "dc1", NodeClass: "gpu", NodePool: "pool-a",
		Attributes: map[string]string{"kernel.name": "linux"},
		Meta:       map[string]string{"rack": "r12"},
	}
	return buildTaskEnv(alloc, task, td, node), alloc, td
}

func TestTaskEnv_Variables(t *testing.T) {
	env, alloc, td := testEnv(t)
	vars := env.Map()
	want := map[string]string{
		"NOMAD_ALLOC_DIR":        "/data/allocs/" + alloc.ID + "/alloc",
		"NOMAD_TASK_DIR":         td.LocalDir,
		"NOMAD_SECRETS_DIR":      td.SecretsDir,
		"NOMAD_ALLOC_ID":         alloc.ID,
		"NOMAD_SHORT_ALLOC_ID":   "8f8c6f0e",
		"NOMAD_ALLOC_NAME":       "example.web[2]",
		"NOMAD_ALLOC_INDEX":      "2",
		"NOMAD_GROUP_NAME":       "web",
		"NOMAD_TASK_NAME":        "web",
		"NOMAD_JOB_ID":           "example",
		"NOMAD_JOB_NAME":         "example",
		"NOMAD_JOB_PARENT_ID":    "parent",
		"NOMAD_NAMESPACE":        "default",
		"NOMAD_REGION":           "global",
		"NOMAD_DC":               "dc1",
		"NOMAD_CPU_LIMIT":        "250",
		"NOMAD_CPU_CORES":        "2",
		"NOMAD_MEMORY_LIMIT":     "128",
		"NOMAD_MEMORY_MAX_LIMIT": "256",
		// Meta from the job, the group and the task; the task wins.
		"NOMAD_META_owner":   "ops",
		"NOMAD_META_OWNER":   "ops",
		"NOMAD_META_tier":    "back",
		"NOMAD_META_TIER":    "back",
		"NOMAD_META_Version": "3",
		"NOMAD_META_VERSION": "3",
		// The task's env, interpolated; unknown references stay.
		"GREETING": "hello web in dc1",
		"SHELLY":   "${HOME}/bin",
	}
	must.Eq(t, want, vars)

	// Map is a copy.
	vars["NOMAD_TASK_NAME"] = "changed"
	must.Eq(t, "web", env.Map()["NOMAD_TASK_NAME"])
}

func TestTaskEnv_Replace(t *testing.T) {
	env, alloc, _ := testEnv(t)
	cases := []struct {
		in, want string
	}{
		{"plain", "plain"},
		{"${NOMAD_ALLOC_ID}", alloc.ID},
		{"id=${NOMAD_SHORT_ALLOC_ID}/${NOMAD_TASK_NAME}", "id=8f8c6f0e/web"},
		{"${ NOMAD_TASK_NAME }", "web"},
		{"${GREETING}!", "hello web in dc1!"},
		{"${attr.kernel.name}", "linux"},
		{"${meta.rack}", "r12"},
		{"${node.unique.id} ${node.unique.name} ${node.datacenter} ${node.class} ${node.pool}", "node-1 box dc1 gpu pool-a"},
		{"${attr.missing}", "${attr.missing}"},
		{"${meta.missing}", "${meta.missing}"},
		{"${NOPE} and ${NOMAD_TASK_NAME}", "${NOPE} and web"},
		{"unterminated ${NOMAD_TASK_NAME", "unterminated ${NOMAD_TASK_NAME"},
		{"$NOMAD_TASK_NAME", "$NOMAD_TASK_NAME"},
	}
	for _, c := range cases {
		must.Eq(t, c.want, env.replace(c.in), must.Sprintf("input %q", c.in))
	}
}

func TestTaskEnv_ReplaceConfig(t *testing.T) {
	env, alloc, _ := testEnv(t)
	config := map[string]any{
		"command":            "/bin/${NOMAD_TASK_NAME}",
		"args":               []any{"--alloc", "${NOMAD_ALLOC_ID}", 3},
		"labels":             []map[string]any{{"dc": "${node.datacenter}"}},
		"nested":             map[string]any{"deeper": map[string]any{"x": "${meta.rack}"}, "n": 7, "ok": true},
		"strs":               []string{"${NOMAD_GROUP_NAME}"},
		"smap":               map[string]string{"k": "${NOMAD_JOB_ID}"},
		"${NOMAD_TASK_NAME}": "keys are not interpolated",
	}
	got := env.replaceConfig(config)
	must.Eq(t, map[string]any{
		"command":            "/bin/web",
		"args":               []any{"--alloc", alloc.ID, 3},
		"labels":             []map[string]any{{"dc": "dc1"}},
		"nested":             map[string]any{"deeper": map[string]any{"x": "r12"}, "n": 7, "ok": true},
		"strs":               []string{"web"},
		"smap":               map[string]string{"k": "example"},
		"${NOMAD_TASK_NAME}": "keys are not interpolated",
	}, got)
	// The input is untouched.
	must.Eq(t, "/bin/${NOMAD_TASK_NAME}", config["command"].(string))
	must.Eq(t, "${NOMAD_ALLOC_ID}", config["args"].([]any)[1].(string))
	must.Nil(t, env.replaceConfig(nil))
}

func TestTaskEnv_WithoutNode(t *testing.T) {
	task := testTask("web", nil)
	alloc := testAlloc(structs.JobTypeBatch, task)
	ad, err := allocdir.New("/data", alloc.ID)
	must.NoError(t, err)
	td, err := ad.TaskDir("web")
	must.NoError(t, err)
	env := buildTaskEnv(alloc, task, td, nil)
	must.Eq(t, "${node.datacenter} web", env.replace("${node.datacenter} ${NOMAD_TASK_NAME}"))
}

func TestTaskEnv_MaxRunDeadline(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 4, 5, 600_000_000, time.UTC)
	begun := created.Add(90 * time.Second)
	cases := []struct {
		name         string
		group, own   *time.Duration
		wantDeadline time.Time
		wantDuration string
	}{
		{name: "the group's", group: new(10*time.Minute + 500*time.Millisecond),
			wantDeadline: created.Add(10*time.Minute + 500*time.Millisecond), wantDuration: "600"},
		{name: "the task's own, earlier", group: new(time.Hour), own: new(5 * time.Minute),
			wantDeadline: begun.Add(5 * time.Minute), wantDuration: "300"},
		{name: "the group's, earlier", group: new(2 * time.Minute), own: new(5 * time.Minute),
			wantDeadline: created.Add(2 * time.Minute), wantDuration: "120"},
		{name: "none"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			task := testTask("web", nil)
			task.MaxRunDuration = tc.own
			alloc := testAlloc(structs.JobTypeBatch, task)
			alloc.CreateTime = created.UnixNano()
			alloc.Job.TaskGroups[0].MaxRunDuration = tc.group
			alloc.TaskStates = map[string]*structs.TaskState{"web": {RunnerStartedAt: begun}}
			ad, err := allocdir.New("/data/allocs", alloc.ID)
			must.NoError(t, err)
			td, err := ad.TaskDir("web")
			must.NoError(t, err)
			task.Env = map[string]string{"LEFT_UNTIL": "${NOMAD_MAX_RUN_DEADLINE}"}

			vars := buildTaskEnv(alloc, task, td, nil).Map()
			if tc.wantDeadline.IsZero() {
				must.MapNotContainsKey(t, vars, "NOMAD_MAX_RUN_DEADLINE")
				must.MapNotContainsKey(t, vars, "NOMAD_MAX_RUN_DURATION")
				return
			}
			deadline := strconv.FormatInt(tc.wantDeadline.Unix(), 10)
			must.Eq(t, deadline, vars["NOMAD_MAX_RUN_DEADLINE"])
			must.Eq(t, tc.wantDuration, vars["NOMAD_MAX_RUN_DURATION"])
			must.Eq(t, deadline, vars["LEFT_UNTIL"], must.Sprint("available to interpolation"))
		})
	}
}

func TestTaskEnv_InterpolatedConfigSharesBlockWithoutReference(t *testing.T) {
	env := &taskEnv{vars: map[string]string{"NOMAD_TASK_NAME": "web"}}
	plain := map[string]any{"run_for": "1h", "args": []any{"a", map[string]any{"b": "c"}}}
	got := env.interpolatedConfig(plain)
	// The same map, not a copy.
	got["probe"] = true
	must.Eq(t, true, plain["probe"])

	nested := map[string]any{"run_for": "1h", "args": []any{"a", map[string]any{"b": "${NOMAD_TASK_NAME}"}}}
	got = env.interpolatedConfig(nested)
	must.Eq(t, "web", got["args"].([]any)[1].(map[string]any)["b"])
	must.Eq(t, "${NOMAD_TASK_NAME}", nested["args"].([]any)[1].(map[string]any)["b"])
	must.Nil(t, env.interpolatedConfig(nil))
}
