package structs

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

// diffJob is the DESIGN.md example: a batch group of two tasks bounded to
// ten seconds, canonicalised and as the store keeps it.
func diffJob() *Job {
	j := &Job{
		ID:          "maxrun",
		Name:        "maxrun",
		Type:        JobTypeBatch,
		Datacenters: []string{"dc1"},
		TaskGroups: []*TaskGroup{{
			Name:           "maxrun",
			Count:          1,
			MaxRunDuration: new(10 * time.Second),
			Tasks: []*Task{
				{Name: "maxrun", Driver: "raw_exec", Config: map[string]any{"command": "/bin/sleep", "args": []any{"1000m"}}},
				{Name: "maxrun2", Driver: "raw_exec", Config: map[string]any{"command": "/bin/sleep", "args": []any{"2s"}}},
			},
		}},
	}
	j.Canonicalize()
	// Server-set fields that a diff must not report.
	j.Version, j.Status, j.SubmitTime, j.Stable = 3, JobStatusRunning, 1700000000, true
	j.CreateIndex, j.ModifyIndex, j.JobModifyIndex = 10, 12, 12
	return j
}

func mustDiff(t *testing.T, old, next *Job, contextual bool) *JobDiff {
	t.Helper()
	d, err := old.Diff(next, contextual)
	must.NoError(t, err)
	return d
}

func TestDiff_noChangeIsNone(t *testing.T) {
	old := diffJob()
	next := old.Copy()
	next.Version, next.Status, next.SubmitTime, next.Stable = 4, JobStatusPending, 1800000000, false
	next.CreateIndex, next.ModifyIndex, next.JobModifyIndex = 20, 22, 22

	d := mustDiff(t, old, next, true)
	must.Eq(t, DiffTypeNone, d.Type)
	must.Eq(t, "maxrun", d.ID)
	must.SliceEmpty(t, d.Fields)
	must.SliceEmpty(t, d.Objects)
	must.Len(t, 1, d.TaskGroups)
	tg := d.TaskGroups[0]
	must.Eq(t, DiffTypeNone, tg.Type)
	must.SliceEmpty(t, tg.Fields)
	must.SliceEmpty(t, tg.Objects)
	must.Len(t, 2, tg.Tasks)
	for _, task := range tg.Tasks {
		must.Eq(t, DiffTypeNone, task.Type)
		must.SliceEmpty(t, task.Fields)
		must.SliceEmpty(t, task.Objects)
	}
}

func TestDiff_maxRunDurationIsOneEditedGroupField(t *testing.T) {
	old := diffJob()
	next := old.Copy()
	next.TaskGroups[0].MaxRunDuration = new(30 * time.Second)

	d := mustDiff(t, old, next, true)
	must.Eq(t, DiffTypeEdited, d.Type)
	must.SliceEmpty(t, d.Fields)
	must.SliceEmpty(t, d.Objects)
	tg := d.TaskGroups[0]
	must.Eq(t, DiffTypeEdited, tg.Type)
	must.Eq(t, "maxrun", tg.Name)
	must.Eq(t, []*FieldDiff{{Type: DiffTypeEdited, Name: "MaxRunDuration", Old: "10000000000", New: "30000000000"}}, tg.Fields)
	must.SliceEmpty(t, tg.Objects)
	for _, task := range tg.Tasks {
		must.Eq(t, DiffTypeNone, task.Type, must.Sprintf("task %s", task.Name))
	}
}

func TestDiff_maxRunDurationAddedAndRemoved(t *testing.T) {
	unbounded := diffJob()
	unbounded.TaskGroups[0].MaxRunDuration = nil
	bounded := diffJob()

	added := mustDiff(t, unbounded, bounded, false).TaskGroups[0]
	must.Eq(t, []*FieldDiff{{Type: DiffTypeAdded, Name: "MaxRunDuration", New: "10000000000"}}, added.Fields)
	removed := mustDiff(t, bounded, unbounded, false).TaskGroups[0]
	must.Eq(t, []*FieldDiff{{Type: DiffTypeDeleted, Name: "MaxRunDuration", Old: "10000000000"}}, removed.Fields)
}

func TestDiff_taskConfigChange(t *testing.T) {
	old := diffJob()
	next := old.Copy()
	next.TaskGroups[0].Tasks[0].Config["args"] = []any{"2000m"}

	for _, contextual := range []bool{false, true} {
		d := mustDiff(t, old, next, contextual)
		tg := d.TaskGroups[0]
		must.Eq(t, DiffTypeEdited, d.Type)
		must.Eq(t, DiffTypeEdited, tg.Type)
		must.SliceEmpty(t, tg.Fields)
		must.Eq(t, "maxrun", tg.Tasks[0].Name)
		must.Eq(t, DiffTypeNone, tg.Tasks[1].Type)

		task := tg.Tasks[0]
		must.Eq(t, DiffTypeEdited, task.Type)
		must.SliceEmpty(t, task.Fields)
		must.Len(t, 1, task.Objects)
		config := task.Objects[0]
		must.Eq(t, DiffTypeEdited, config.Type)
		must.Eq(t, "Config", config.Name)
		want := []*FieldDiff{{Type: DiffTypeEdited, Name: "args[0]", Old: "1000m", New: "2000m"}}
		if contextual {
			want = append(want, &FieldDiff{Type: DiffTypeNone, Name: "command", Old: "/bin/sleep", New: "/bin/sleep"})
		}
		must.Eq(t, want, config.Fields)
	}
}

func TestDiff_configNumbersCompareAcrossJSON(t *testing.T) {
	old := diffJob()
	old.TaskGroups[0].Tasks[0].Config["port"] = 8080
	next := old.Copy()
	next.TaskGroups[0].Tasks[0].Config["port"] = float64(8080)
	must.Eq(t, DiffTypeNone, mustDiff(t, old, next, true).Type)
}

func TestDiff_fields(t *testing.T) {
	cases := []struct {
		name   string
		change func(j *Job)
		check  func(t *testing.T, d *JobDiff)
	}{
		{
			name:   "priority and meta",
			change: func(j *Job) { j.Priority = 70; j.Meta = map[string]string{"team": "data"} },
			check: func(t *testing.T, d *JobDiff) {
				must.Eq(t, []*FieldDiff{
					{Type: DiffTypeAdded, Name: "Meta[team]", New: "data"},
					{Type: DiffTypeEdited, Name: "Priority", Old: "50", New: "70"},
				}, d.Fields)
			},
		},
		{
			name:   "datacenters",
			change: func(j *Job) { j.Datacenters = []string{"dc1", "dc2"} },
			check: func(t *testing.T, d *JobDiff) {
				must.Eq(t, []*ObjectDiff{{Type: DiffTypeEdited, Name: "Datacenters", Fields: []*FieldDiff{
					{Type: DiffTypeNone, Name: "Datacenters", Old: "dc1", New: "dc1"},
					{Type: DiffTypeAdded, Name: "Datacenters", New: "dc2"},
				}}}, d.Objects)
			},
		},
		{
			name: "constraint replaced",
			change: func(j *Job) {
				j.Constraints = []*Constraint{{LTarget: "${attr.kernel.name}", RTarget: "linux", Operand: "="}}
			},
			check: func(t *testing.T, d *JobDiff) {
				must.Len(t, 1, d.Objects)
				must.Eq(t, DiffTypeAdded, d.Objects[0].Type)
				must.Eq(t, "Constraint", d.Objects[0].Name)
				must.Len(t, 3, d.Objects[0].Fields)
			},
		},
		{
			name: "periodic",
			change: func(j *Job) {
				j.Periodic = &PeriodicConfig{Enabled: true, Spec: "*/5 * * * *", SpecType: PeriodicSpecCron, TimeZone: "UTC"}
			},
			check: func(t *testing.T, d *JobDiff) {
				must.Len(t, 1, d.Objects)
				must.Eq(t, "Periodic", d.Objects[0].Name)
				must.Eq(t, DiffTypeAdded, d.Objects[0].Type)
				must.SliceContains(t, d.Objects[0].Fields, &FieldDiff{Type: DiffTypeAdded, Name: "Spec", New: "*/5 * * * *"})
			},
		},
		{
			name: "group count, restart policy and meta",
			change: func(j *Job) {
				tg := j.TaskGroups[0]
				tg.Count = 3
				tg.RestartPolicy.Attempts = 7
				tg.Meta = map[string]string{"k": "v"}
			},
			check: func(t *testing.T, d *JobDiff) {
				tg := d.TaskGroups[0]
				must.Eq(t, []*FieldDiff{
					{Type: DiffTypeEdited, Name: "Count", Old: "1", New: "3"},
					{Type: DiffTypeAdded, Name: "Meta[k]", New: "v"},
				}, tg.Fields)
				must.Len(t, 1, tg.Objects)
				restart := tg.Objects[0]
				must.Eq(t, "RestartPolicy", restart.Name)
				must.SliceContains(t, restart.Fields, &FieldDiff{Type: DiffTypeEdited, Name: "Attempts", Old: "3", New: "7"})
				must.SliceContainsFunc(t, restart.Fields, "Delay", func(f *FieldDiff, name string) bool {
					return f.Name == name && f.Type == DiffTypeNone
				})
			},
		},
		{
			name: "task fields and blocks",
			change: func(j *Job) {
				task := j.TaskGroups[0].Tasks[1]
				task.KillTimeout = 30 * time.Second
				task.KillSignal = "SIGTERM"
				task.Env = map[string]string{"MODE": "fast"}
				task.Resources.MemoryMB = 512
				task.Lifecycle = &TaskLifecycle{Hook: TaskLifecycleHookPoststop}
				task.Artifacts = []*TaskArtifact{{GetterSource: "https://example.com/a.tgz", RelativeDest: "local/"}}
			},
			check: func(t *testing.T, d *JobDiff) {
				task := d.TaskGroups[0].Tasks[1]
				must.Eq(t, "maxrun2", task.Name)
				must.Eq(t, DiffTypeEdited, task.Type)
				must.Eq(t, []*FieldDiff{
					{Type: DiffTypeAdded, Name: "Env[MODE]", New: "fast"},
					{Type: DiffTypeEdited, Name: "KillSignal", Old: "", New: "SIGTERM"},
					{Type: DiffTypeEdited, Name: "KillTimeout", Old: "5000000000", New: "30000000000"},
				}, fieldChanges(task.Fields))
				names := make([]string, len(task.Objects))
				for i, o := range task.Objects {
					names[i] = o.Type + " " + o.Name
				}
				must.Eq(t, []string{"Added Artifact", "Added Lifecycle", "Edited Resources"}, names)
			},
		},
		{
			name: "task added and group removed",
			change: func(j *Job) {
				extra := j.TaskGroups[0].Tasks[0].Copy()
				extra.Name = "extra"
				j.TaskGroups[0].Tasks = append(j.TaskGroups[0].Tasks, extra)
				j.TaskGroups = append(j.TaskGroups, &TaskGroup{Name: "added", Count: 2, Tasks: []*Task{{Name: "t", Driver: "mock"}}})
			},
			check: func(t *testing.T, d *JobDiff) {
				must.Len(t, 2, d.TaskGroups)
				added := d.TaskGroups[0]
				must.Eq(t, "added", added.Name)
				must.Eq(t, DiffTypeAdded, added.Type)
				must.SliceContains(t, added.Fields, &FieldDiff{Type: DiffTypeAdded, Name: "Count", New: "2"})
				must.Eq(t, DiffTypeAdded, added.Tasks[0].Type)
				tasks := d.TaskGroups[1].Tasks
				must.Len(t, 3, tasks)
				must.Eq(t, "extra", tasks[0].Name)
				must.Eq(t, DiffTypeAdded, tasks[0].Type)
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			old := diffJob()
			next := old.Copy()
			tc.change(next)
			d := mustDiff(t, old, next, true)
			must.Eq(t, DiffTypeEdited, d.Type)
			tc.check(t, d)

			back := mustDiff(t, next, old, true)
			must.Eq(t, DiffTypeEdited, back.Type, must.Sprint("the reverse change is a change too"))
		})
	}
}

// fieldChanges drops the unchanged fields.
func fieldChanges(fields []*FieldDiff) []*FieldDiff {
	var out []*FieldDiff
	for _, f := range fields {
		if f.Type != DiffTypeNone {
			out = append(out, f)
		}
	}
	return out
}

func TestDiff_newAndRemovedJob(t *testing.T) {
	job := diffJob()
	created := mustDiff(t, nil, job, false)
	must.Eq(t, DiffTypeAdded, created.Type)
	must.SliceContains(t, created.Fields, &FieldDiff{Type: DiffTypeAdded, Name: "Type", New: "batch"})
	must.Eq(t, DiffTypeAdded, created.TaskGroups[0].Type)
	must.Eq(t, DiffTypeAdded, created.TaskGroups[0].Tasks[0].Type)

	removed := mustDiff(t, job, nil, false)
	must.Eq(t, DiffTypeDeleted, removed.Type)
	must.Eq(t, DiffTypeDeleted, removed.TaskGroups[0].Type)
}

func TestDiff_refusesDifferentJobs(t *testing.T) {
	other := diffJob()
	other.ID = "other"
	_, err := diffJob().Diff(other, false)
	must.ErrorContains(t, err, `job "maxrun"`)
	_, err = (*Job)(nil).Diff(nil, false)
	must.Error(t, err)
}

// TestDiff_maxRunExtensions holds that job plan shows the changes of
// Drover's additions: a task's own limit and warning, the group's outcome.
func TestDiff_maxRunExtensions(t *testing.T) {
	old := diffJob()
	next := old.Copy()
	next.TaskGroups[0].MaxRunOutcome = MaxRunOutcomeFailed
	next.TaskGroups[0].Tasks[0].MaxRunDuration = new(5 * time.Second)
	next.TaskGroups[0].Tasks[0].MaxRunWarning = &MaxRunWarning{Signal: "SIGUSR1", Before: time.Second}

	d := mustDiff(t, old, next, false)
	tg := d.TaskGroups[0]
	must.Eq(t, []*FieldDiff{{Type: DiffTypeAdded, Name: "MaxRunOutcome", New: "failed"}}, tg.Fields)
	must.Eq(t, []*FieldDiff{
		{Type: DiffTypeAdded, Name: "MaxRunDuration", New: "5000000000"},
		{Type: DiffTypeAdded, Name: "MaxRunWarning.Before", New: "1000000000"},
		{Type: DiffTypeAdded, Name: "MaxRunWarning.Signal", New: "SIGUSR1"},
	}, tg.Tasks[0].Fields)
}
