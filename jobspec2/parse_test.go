package jobspec2

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// The example from DESIGN.md, written as compactly as it is there.
func TestParse_MaxRunDurationExample(t *testing.T) {
	job := parseTestdata(t, "maxrun.hcl", nil)

	must.Eq(t, "maxrun", *job.ID)
	must.Eq(t, "maxrun", *job.Name)
	must.Eq(t, api.JobTypeBatch, *job.Type)
	must.Len(t, 1, job.TaskGroups)
	tg := job.TaskGroups[0]
	must.Eq(t, "maxrun", *tg.Name)
	must.NotNil(t, tg.MaxRunDuration)
	must.Eq(t, 10*time.Second, *tg.MaxRunDuration)

	tests := []struct {
		name string
		args []any
	}{
		{name: "maxrun", args: []any{"1000m"}},
		{name: "maxrun2", args: []any{"2s"}},
	}
	must.Len(t, len(tests), tg.Tasks)
	for i, tc := range tests {
		task := tg.Tasks[i]
		must.Eq(t, tc.name, task.Name)
		must.Eq(t, "raw_exec", task.Driver)
		must.Eq(t, map[string]any{"command": "/bin/sleep", "args": tc.args}, task.Config)
	}
}

func TestParse_Lifecycle(t *testing.T) {
	job := parseTestdata(t, "lifecycle.hcl", nil)
	must.Len(t, 1, job.TaskGroups)
	tasks := job.TaskGroups[0].Tasks

	tests := []struct {
		name      string
		lifecycle *api.TaskLifecycle
		leader    bool
	}{
		{name: "setup", lifecycle: &api.TaskLifecycle{Hook: api.TaskLifecycleHookPrestart}},
		{name: "proxy", lifecycle: &api.TaskLifecycle{Hook: api.TaskLifecycleHookPrestart, Sidecar: true}},
		{name: "main", leader: true},
		{name: "cleanup", lifecycle: &api.TaskLifecycle{Hook: api.TaskLifecycleHookPoststop}},
	}
	must.Len(t, len(tests), tasks)
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			must.Eq(t, tc.name, tasks[i].Name)
			must.Eq(t, tc.lifecycle, tasks[i].Lifecycle)
			must.Eq(t, tc.leader, tasks[i].Leader)
		})
	}
	// The client interpolates NOMAD_* variables; the parser leaves them be.
	must.Eq[any](t, []any{"-rf", "${NOMAD_ALLOC_DIR}/scratch"}, tasks[3].Config["args"])
}

func TestParse_Sysbatch(t *testing.T) {
	job := parseTestdata(t, "sysbatch.hcl", nil)
	must.Eq(t, api.JobTypeSysbatch, *job.Type)
	must.Eq(t, []string{"dc1", "dc2"}, job.Datacenters)
	must.Eq(t, "batch", *job.NodePool)
	must.Eq(t, 70, *job.Priority)
	must.Eq(t, 90*time.Minute, *job.TaskGroups[0].MaxRunDuration)
	must.Nil(t, job.TaskGroups[0].Count)
}

func TestParse_Periodic(t *testing.T) {
	job := parseTestdata(t, "periodic.hcl", nil)
	must.Eq(t, &api.PeriodicConfig{
		Specs:           []string{"0 6 * * *", "30 18 * * 1-5"},
		SpecType:        ptr("cron"),
		ProhibitOverlap: ptr(true),
		TimeZone:        ptr("Europe/Berlin"),
	}, job.Periodic)
	must.True(t, job.IsPeriodic())
}

func TestParse_PeriodicSingleCron(t *testing.T) {
	job := mustParseString(t, `
job "p" {
  periodic {
    cron    = "*/5 * * * *"
    enabled = false
  }
}
`)
	must.Eq(t, "*/5 * * * *", *job.Periodic.Spec)
	must.Eq(t, "cron", *job.Periodic.SpecType)
	must.False(t, *job.Periodic.Enabled)
	must.False(t, job.IsPeriodic())
}

func TestParse_Full(t *testing.T) {
	job := parseTestdata(t, "full.hcl", nil)

	t.Run("job", func(t *testing.T) {
		must.Eq(t, "full", *job.ID)
		must.Eq(t, "full-job", *job.Name)
		must.Eq(t, "europe", *job.Region)
		must.Eq(t, "prod", *job.Namespace)
		must.Eq(t, api.JobTypeService, *job.Type)
		must.Eq(t, 60, *job.Priority)
		must.True(t, *job.AllAtOnce)
		must.Eq(t, map[string]string{"team": "infra", "tier": "2"}, job.Meta)
		must.Eq(t, []*api.Constraint{
			{LTarget: "${attr.kernel.name}", Operand: "=", RTarget: "linux"},
			{LTarget: "${attr.kernel.version}", Operand: "version", RTarget: ">= 5.10"},
			{Operand: "distinct_hosts"},
		}, job.Constraints)
		must.Eq(t, &api.ReschedulePolicy{
			Attempts:      ptr(3),
			Interval:      dur(time.Hour),
			Delay:         dur(30 * time.Second),
			DelayFunction: ptr("exponential"),
			MaxDelay:      dur(10 * time.Minute),
			Unlimited:     ptr(false),
		}, job.Reschedule)
	})

	must.Len(t, 1, job.TaskGroups)
	tg := job.TaskGroups[0]
	t.Run("group", func(t *testing.T) {
		must.Eq(t, 3, *tg.Count)
		must.Eq(t, 5*time.Second, *tg.ShutdownDelay)
		must.Nil(t, tg.MaxRunDuration)
		must.Eq(t, map[string]string{"rack.zone": "a"}, tg.Meta)
		must.Eq(t, []*api.Constraint{
			{LTarget: "${meta.rack}", Operand: "regexp", RTarget: "^r[0-9]+$"},
			{LTarget: "${meta.rack}", Operand: "distinct_property", RTarget: "2"},
		}, tg.Constraints)
		must.Eq(t, &api.RestartPolicy{
			Attempts: ptr(2), Interval: dur(30 * time.Minute), Delay: dur(15 * time.Second), Mode: ptr("fail"),
		}, tg.RestartPolicy)
	})

	must.Len(t, 2, tg.Tasks)
	server, helper := tg.Tasks[0], tg.Tasks[1]
	t.Run("task settings", func(t *testing.T) {
		must.Eq(t, "server", server.Name)
		must.Eq(t, "docker", server.Driver)
		must.Eq(t, "nobody", server.User)
		must.Eq(t, 20*time.Second, *server.KillTimeout)
		must.Eq(t, "SIGINT", server.KillSignal)
		must.Eq(t, 3*time.Second, server.ShutdownDelay)
		must.Eq(t, &api.Resources{
			CPU: ptr(500), Cores: ptr(2), MemoryMB: ptr(256), MemoryMaxMB: ptr(512), DiskMB: ptr(1024),
		}, server.Resources)
		must.Eq(t, []*api.Constraint{{LTarget: "${attr.cpu.arch}", Operand: "!=", RTarget: "arm64"}}, server.Constraints)
		must.Eq(t, &api.RestartPolicy{
			Attempts: ptr(5), Interval: dur(5 * time.Minute), Delay: dur(10 * time.Second), Mode: ptr("delay"),
		}, server.RestartPolicy)
		must.Eq(t, &api.LogConfig{MaxFiles: ptr(4), MaxFileSizeMB: ptr(15), Disabled: ptr(false)}, server.LogConfig)
	})

	t.Run("config", func(t *testing.T) {
		must.Eq(t, map[string]any{
			"image":   "nginx:1.27",
			"args":    []any{"-g", "daemon off;"},
			"ports":   []any{"http"},
			"labels":  map[string]any{"app": "web", "replicas": 3},
			"verbose": true,
			"ratio":   0.5,
			"mount": []any{
				map[string]any{"type": "bind", "source": "local/conf", "target": "/etc/nginx/conf.d"},
				map[string]any{"type": "tmpfs", "target": "/cache"},
			},
			"logging": []any{
				map[string]any{"type": "syslog", "config": []any{map[string]any{"tag": "web"}}},
			},
		}, server.Config)
	})

	t.Run("env and meta in both forms", func(t *testing.T) {
		must.Eq(t, map[string]string{"PORT": "8080", "NODE_DC": "${node.datacenter}"}, server.Env)
		must.Eq(t, map[string]string{"owner": "web-team"}, server.Meta)
		must.Eq(t, map[string]string{"HELPER_MODE": "fast", "LEVEL": "3"}, helper.Env)
		must.Eq(t, map[string]string{"role": "helper"}, helper.Meta)
	})

	t.Run("artifacts", func(t *testing.T) {
		must.Eq(t, []*api.TaskArtifact{
			{
				GetterSource:  ptr("https://example.com/conf.tar.gz"),
				RelativeDest:  ptr("local/conf"),
				GetterMode:    ptr("dir"),
				GetterOptions: map[string]string{"checksum": "sha256:abcd"},
				GetterHeaders: map[string]string{"User-Agent": "drover"},
			},
			{
				GetterSource:  ptr("https://example.com/tool"),
				GetterMode:    ptr("file"),
				GetterOptions: map[string]string{"archive": "false"},
			},
		}, server.Artifacts)
	})

	t.Run("runtime interpolation kept", func(t *testing.T) {
		must.Eq[any](t, []any{"-c", "echo ${NOMAD_TASK_NAME} on ${attr.unique.hostname}"}, helper.Config["args"])
	})
}

func TestParse_Durations(t *testing.T) {
	tests := []struct {
		value string
		want  time.Duration
	}{
		{value: "10s", want: 10 * time.Second},
		{value: "1h30m", want: 90 * time.Minute},
		{value: "250ms", want: 250 * time.Millisecond},
		// Negative durations parse; the server's validation rejects them.
		{value: "-5s", want: -5 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.value, func(t *testing.T) {
			job := mustParseString(t, `
job "j" {
  group "g" {
    max_run_duration = "`+tc.value+`"
    shutdown_delay   = "`+tc.value+`"
    task "t" {
      kill_timeout   = "`+tc.value+`"
      shutdown_delay = "`+tc.value+`"
    }
  }
}
`)
			tg := job.TaskGroups[0]
			must.Eq(t, tc.want, *tg.MaxRunDuration)
			must.Eq(t, tc.want, *tg.ShutdownDelay)
			must.Eq(t, tc.want, *tg.Tasks[0].KillTimeout)
			must.Eq(t, tc.want, tg.Tasks[0].ShutdownDelay)
		})
	}
}

func TestParse_Stdin(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "maxrun.hcl"))
	must.NoError(t, err)

	for _, path := range []string{"-", ""} {
		job, err := ParseWithConfig(&ParseConfig{Path: path, Body: src})
		must.NoError(t, err)
		must.Eq(t, "maxrun", *job.ID)
		must.Len(t, 2, job.TaskGroups[0].Tasks)
	}

	_, err = ParseWithConfig(&ParseConfig{Path: "-", Body: []byte(`job "x" { bogus = 1 }`)})
	must.ErrorContains(t, err, "<stdin>:1,11-16: Unsupported argument")
}

func TestParse_File(t *testing.T) {
	job, err := ParseWithConfig(&ParseConfig{Path: filepath.Join("testdata", "sysbatch.hcl")})
	must.NoError(t, err)
	must.Eq(t, "sweep", *job.ID)

	_, err = ParseWithConfig(&ParseConfig{Path: filepath.Join("testdata", "does-not-exist.hcl")})
	must.ErrorContains(t, err, "does-not-exist.hcl")
}

func TestParse_NilConfig(t *testing.T) {
	_, err := ParseWithConfig(nil)
	must.Error(t, err)
}

// TestParse_TaskInJob: a task written directly in the job becomes a group
// of its own name, before the declared groups, as in Nomad.
func TestParse_TaskInJob(t *testing.T) {
	job := mustParseString(t, `job "j" {
  group "g" {
    task "a" { driver = "raw_exec" }
  }
  task "solo" {
    driver = "raw_exec"
    config { command = "/bin/true" }
  }
}`)
	must.SliceLen(t, 2, job.TaskGroups)
	must.Eq(t, "solo", *job.TaskGroups[0].Name)
	must.SliceLen(t, 1, job.TaskGroups[0].Tasks)
	must.Eq(t, "solo", job.TaskGroups[0].Tasks[0].Name)
	must.Eq(t, "/bin/true", job.TaskGroups[0].Tasks[0].Config["command"])
	must.Eq(t, "g", *job.TaskGroups[1].Name)

	_, err := parseString(t, `job "j" {
  group "solo" {
    task "a" { driver = "raw_exec" }
  }
  task "solo" { driver = "raw_exec" }
}`)
	must.ErrorContains(t, err, "job.hcl:2,3-15: Duplicate group")
}
