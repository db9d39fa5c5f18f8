package structs

import (
	"errors"
	"regexp/syntax"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

// validJob is a canonicalised job of the given type with group "g" holding
// task "t".
func validJob(jobType string) *Job {
	j := &Job{
		ID:   "example",
		Type: jobType,
		TaskGroups: []*TaskGroup{{
			Name:  "g",
			Count: DefaultTaskGroupCount,
			Tasks: []*Task{{Name: "t", Driver: "raw_exec"}},
		}},
	}
	j.Canonicalize()
	return j
}

func group(j *Job) *TaskGroup { return j.TaskGroups[0] }
func task(j *Job) *Task       { return j.TaskGroups[0].Tasks[0] }

// addTask adds a valid task named name to group "g".
func addTask(j *Job, name string) *Task {
	t := task(j).Copy()
	t.Name = name
	group(j).Tasks = append(group(j).Tasks, t)
	return t
}

func TestValidate_validJobs(t *testing.T) {
	cases := []struct {
		name    string
		jobType string
		mutate  func(j *Job)
	}{
		{name: "service", jobType: "service"},
		{name: "batch", jobType: "batch"},
		{name: "system", jobType: "system"},
		{name: "sysbatch", jobType: "sysbatch"},
		{name: "batch with max_run_duration", jobType: "batch", mutate: func(j *Job) {
			group(j).MaxRunDuration = new(10 * time.Second)
		}},
		{name: "sysbatch with max_run_duration", jobType: "sysbatch", mutate: func(j *Job) {
			group(j).MaxRunDuration = new(time.Hour)
		}},
		{name: "periodic child ID", jobType: "batch", mutate: func(j *Job) {
			j.ParentID = "example"
			j.ID = "example/periodic-1700000000"
		}},
		{name: "count 0", jobType: "service", mutate: func(j *Job) { group(j).Count = 0 }},
		{name: "system count 1", jobType: "system", mutate: func(j *Job) { group(j).Count = 1 }},
		{name: "lifecycle tasks", jobType: "batch", mutate: func(j *Job) {
			addTask(j, "pre").Lifecycle = &TaskLifecycle{Hook: "prestart"}
			addTask(j, "side").Lifecycle = &TaskLifecycle{Hook: "prestart", Sidecar: true}
			addTask(j, "post").Lifecycle = &TaskLifecycle{Hook: "poststart", Sidecar: true}
			addTask(j, "stop").Lifecycle = &TaskLifecycle{Hook: "poststop"}
		}},
		{name: "one leader", jobType: "batch", mutate: func(j *Job) {
			addTask(j, "u")
			task(j).Leader = true
		}},
		{name: "cores without cpu", jobType: "batch", mutate: func(j *Job) {
			task(j).Resources = &Resources{Cores: 2, MemoryMB: 10}
		}},
		{name: "every constraint operator", jobType: "service", mutate: func(j *Job) {
			for _, op := range []string{"=", "==", "is", "!=", "not", "<", "<=", ">", ">=", "version", "semver",
				"set_contains", "set_contains_any", "set_contains_all"} {
				j.Constraints = append(j.Constraints, &Constraint{LTarget: "${attr.x}", RTarget: "1", Operand: op})
			}
			j.Constraints = append(j.Constraints,
				&Constraint{LTarget: "${attr.x}", RTarget: "^a+$", Operand: "regexp"},
				&Constraint{LTarget: "${attr.x}", Operand: "is_set"},
				&Constraint{LTarget: "${attr.x}", Operand: "is_not_set"},
				&Constraint{Operand: "distinct_hosts"},
				&Constraint{Operand: "distinct_hosts", RTarget: "true"},
				&Constraint{LTarget: "${meta.rack}", Operand: "distinct_property"},
				&Constraint{LTarget: "${meta.rack}", RTarget: "2", Operand: "distinct_property"},
			)
		}},
		{name: "periodic batch", jobType: "batch", mutate: func(j *Job) {
			j.Periodic = &PeriodicConfig{Enabled: true, Spec: "*/15 * * * *", SpecType: "cron", TimeZone: "America/New_York"}
		}},
		{name: "periodic specs", jobType: "sysbatch", mutate: func(j *Job) {
			j.Periodic = &PeriodicConfig{Enabled: true, Specs: []string{"@hourly", "0 3 * * *"}, SpecType: "cron", TimeZone: "UTC"}
		}},
		{name: "disabled periodic on service", jobType: "service", mutate: func(j *Job) {
			j.Periodic = &PeriodicConfig{Enabled: false, Spec: "not a cron"}
		}},
		{name: "artifact into the shared alloc dir", jobType: "batch", mutate: func(j *Job) {
			task(j).Artifacts = []*TaskArtifact{{GetterSource: "https://x/y", GetterMode: "any", RelativeDest: "../alloc/data"}}
		}},
		{name: "unlimited reschedule without interval", jobType: "service", mutate: func(j *Job) {
			group(j).ReschedulePolicy = &ReschedulePolicy{Attempts: 3, Unlimited: true, Delay: time.Second, MaxDelay: time.Minute, DelayFunction: "fibonacci"}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := validJob(tc.jobType)
			if tc.mutate != nil {
				tc.mutate(j)
			}
			must.NoError(t, j.Validate())
		})
	}
}

func TestValidate_rules(t *testing.T) {
	cases := []struct {
		name    string
		jobType string // "service" when empty
		mutate  func(j *Job)
		want    []string
	}{
		// Job fields.
		{name: "empty ID", mutate: func(j *Job) { j.ID = "" }, want: []string{"Missing job ID"}},
		{name: "whitespace ID", mutate: func(j *Job) { j.ID = " \t " }, want: []string{"Missing job ID"}},
		{name: "long ID", mutate: func(j *Job) { j.ID = strings.Repeat("a", 129) },
			want: []string{"Job ID must be at most 128 characters, got 129"}},
		{name: "NUL in ID", mutate: func(j *Job) { j.ID = "a\x00b" },
			want: []string{"Job ID must contain only printable characters, not U+0000 at byte 2"}},
		{name: "ESC in ID", mutate: func(j *Job) { j.ID = "evil\x1b[2J" },
			want: []string{"Job ID must contain only printable characters, not U+001B at byte 5"}},
		{name: "BEL in ID", mutate: func(j *Job) { j.ID = "\a" },
			want: []string{"Job ID must contain only printable characters, not U+0007 at byte 1"}},
		{name: "bidi override in ID", mutate: func(j *Job) { j.ID = "a\u202eb" },
			want: []string{"Job ID must contain only printable characters, not U+202E at byte 2"}},
		{name: "invalid UTF-8 in ID", mutate: func(j *Job) { j.ID = "a\xffb" },
			want: []string{"Job ID must contain only printable characters, not invalid UTF-8 at byte 2"}},
		{name: "slash in ID", mutate: func(j *Job) { j.ID = "a/b" },
			want: []string{`Job ID must not contain a path separator ("/" or "\")`}},
		{name: "backslash in ID", mutate: func(j *Job) { j.ID = `a\b` },
			want: []string{`Job ID must not contain a path separator ("/" or "\")`}},
		{name: "dot-dot ID", mutate: func(j *Job) { j.ID = ".." }, want: []string{`Job ID must not be ".."`}},
		{name: "space in ID", mutate: func(j *Job) { j.ID = "a b" }, want: []string{"Job ID must not contain whitespace"}},
		{name: "child ID with two levels", mutate: func(j *Job) { j.ParentID = "p"; j.ID = "p/x/y" },
			want: []string{`Job ID must not contain a path separator ("/" or "\")`}},
		{name: "empty name", mutate: func(j *Job) { j.Name = "" }, want: []string{"Missing job name"}},
		{name: "long name", mutate: func(j *Job) { j.Name = strings.Repeat("n", 200) },
			want: []string{"Job name must be at most 128 characters, got 200"}},
		{name: "NUL in name", mutate: func(j *Job) { j.Name = "\x00" },
			want: []string{"Job name must contain only printable characters, not U+0000 at byte 1"}},
		{name: "DEL in namespace", mutate: func(j *Job) { j.Namespace = "ns\x7f" },
			want: []string{"Job namespace must contain only printable characters, not U+007F at byte 3"}},
		{name: "C1 control in region", mutate: func(j *Job) { j.Region = "r\u0085" },
			want: []string{"Job region must contain only printable characters, not U+0085 at byte 2"}},
		{name: "tab in datacenter", mutate: func(j *Job) { j.Datacenters = []string{"dc\t1"} },
			want: []string{"Job datacenter #1 must contain only printable characters, not U+0009 at byte 3"}},
		{name: "ESC in meta key", mutate: func(j *Job) { task(j).Meta = map[string]string{"k\x1b": "v\x1b is fine in a value"} },
			want: []string{`Task group "g" task "t": meta key "k\x1b" must contain only printable characters, not U+001B at byte 2`}},
		{name: "empty region", mutate: func(j *Job) { j.Region = "" }, want: []string{"Missing job region"}},
		{name: "empty namespace", mutate: func(j *Job) { j.Namespace = "" }, want: []string{"Missing job namespace"}},
		{name: "empty type", mutate: func(j *Job) { j.Type = "" }, want: []string{"Missing job type"}},
		{name: "unknown type", mutate: func(j *Job) { j.Type = "web" },
			want: []string{`Invalid job type "web": must be one of service, batch, system, sysbatch`}},
		{name: "priority 0", mutate: func(j *Job) { j.Priority = 0 },
			want: []string{"Job priority must be between 1 and 100, got 0"}},
		{name: "priority 101", mutate: func(j *Job) { j.Priority = 101 },
			want: []string{"Job priority must be between 1 and 100, got 101"}},
		{name: "no datacenters", mutate: func(j *Job) { j.Datacenters = nil }, want: []string{"Missing job datacenters"}},
		{name: "empty datacenter", mutate: func(j *Job) { j.Datacenters = []string{"dc1", ""} },
			want: []string{"Job datacenter #2 must not be empty"}},
		{name: "empty node pool", mutate: func(j *Job) { j.NodePool = "" }, want: []string{"Missing job node pool"}},
		{name: "no groups", mutate: func(j *Job) { j.TaskGroups = nil }, want: []string{"Missing job task groups"}},

		// Groups.
		{name: "null group", mutate: func(j *Job) { j.TaskGroups = append([]*TaskGroup{nil}, j.TaskGroups...) },
			want: []string{"Task group #1: Missing definition (null)"}},
		{name: "unnamed group", mutate: func(j *Job) { group(j).Name = "" },
			want: []string{"Task group #1: Missing name"}},
		{name: "group name with slash", mutate: func(j *Job) { group(j).Name = "a/b" },
			want: []string{`Task group "a/b": Name must not contain a path separator ("/" or "\")`}},
		{name: "group name with NUL", mutate: func(j *Job) { group(j).Name = "a\x00" },
			want: []string{`Task group "a\x00": Name must contain only printable characters, not U+0000 at byte 2`}},
		{name: "task name with ESC", mutate: func(j *Job) { task(j).Name = "t\x1b" },
			want: []string{`Task group "g" task "t\x1b": Name must contain only printable characters, not U+001B at byte 2`}},
		{name: "duplicate group", mutate: func(j *Job) { j.TaskGroups = append(j.TaskGroups, group(j).Copy()) },
			want: []string{`Task group "g": Name is used by more than one task group`}},
		{name: "negative count", mutate: func(j *Job) { group(j).Count = -1 },
			want: []string{`Task group "g": Count must not be negative, got -1`}},
		{name: "system count 2", jobType: "system", mutate: func(j *Job) { group(j).Count = 2 },
			want: []string{`Task group "g": Job type "system" requires count 0 or 1, got 2`}},
		{name: "sysbatch count 3", jobType: "sysbatch", mutate: func(j *Job) { group(j).Count = 3 },
			want: []string{`Task group "g": Job type "sysbatch" requires count 0 or 1, got 3`}},
		{name: "no tasks", mutate: func(j *Job) { group(j).Tasks = nil },
			want: []string{`Task group "g": Missing tasks`}},
		{name: "negative group shutdown_delay", mutate: func(j *Job) { group(j).ShutdownDelay = new(-time.Second) },
			want: []string{`Task group "g": shutdown_delay must not be negative, got -1s`}},
		{name: "two leaders", mutate: func(j *Job) { task(j).Leader = true; addTask(j, "u").Leader = true },
			want: []string{`Task group "g": Only one task may be the leader, got 2: "t", "u"`}},

		// max_run_duration.
		{name: "max_run_duration 0s", jobType: "batch", mutate: func(j *Job) { group(j).MaxRunDuration = new(time.Duration(0)) },
			want: []string{`Task group "g": max_run_duration must be greater than zero, got 0s`}},
		{name: "max_run_duration -5s", jobType: "batch", mutate: func(j *Job) { group(j).MaxRunDuration = new(-5 * time.Second) },
			want: []string{`Task group "g": max_run_duration must be greater than zero, got -5s`}},
		{name: "max_run_duration on service", mutate: func(j *Job) {
			group(j).Name = "maxrun"
			group(j).MaxRunDuration = new(10 * time.Second)
		}, want: []string{`Task group "maxrun": Job type "service" does not allow max_run_duration`}},
		{name: "max_run_duration on system", jobType: "system", mutate: func(j *Job) { group(j).MaxRunDuration = new(10 * time.Second) },
			want: []string{`Task group "g": Job type "system" does not allow max_run_duration`}},
		{name: "max_run_duration -5s on service", mutate: func(j *Job) { group(j).MaxRunDuration = new(-5 * time.Second) },
			want: []string{
				`Task group "g": max_run_duration must be greater than zero, got -5s`,
				`Task group "g": Job type "service" does not allow max_run_duration`,
			}},

		// Tasks.
		{name: "null task", mutate: func(j *Job) { group(j).Tasks = append(group(j).Tasks, nil) },
			want: []string{`Task group "g" task #2: Missing definition (null)`}},
		{name: "unnamed task", mutate: func(j *Job) { task(j).Name = "" },
			want: []string{`Task group "g" task #1: Missing name`}},
		{name: "task name with separator", mutate: func(j *Job) { task(j).Name = `a\b` },
			want: []string{`Task group "g" task "a\\b": Name must not contain a path separator ("/" or "\")`}},
		{name: "long task name", mutate: func(j *Job) { task(j).Name = strings.Repeat("t", 129) },
			want: []string{`Task group "g" task "` + strings.Repeat("t", 129) + `": Name must be at most 128 characters, got 129`}},
		{name: "duplicate task", mutate: func(j *Job) { addTask(j, "t") },
			want: []string{`Task group "g" task "t": Name is used by more than one task`}},
		{name: "missing driver", mutate: func(j *Job) { task(j).Driver = "" },
			want: []string{`Task group "g" task "t": Missing driver`}},
		{name: "unknown driver", mutate: func(j *Job) { task(j).Driver = "podman" },
			want: []string{`Task group "g" task "t": Unknown driver "podman" (Drover's drivers: docker, exec, exec2, java, raw_exec; Nomad's others: see website/content/docs/differences.md)`}},
		{name: "lifecycle without hook", mutate: func(j *Job) { task(j).Lifecycle = &TaskLifecycle{} },
			want: []string{`Task group "g" task "t": lifecycle hook must be one of prestart, poststart, poststop, got ""`}},
		{name: "unknown lifecycle hook", mutate: func(j *Job) { task(j).Lifecycle = &TaskLifecycle{Hook: "during"} },
			want: []string{`Task group "g" task "t": lifecycle hook must be one of prestart, poststart, poststop, got "during"`}},
		{name: "poststop sidecar", mutate: func(j *Job) { task(j).Lifecycle = &TaskLifecycle{Hook: "poststop", Sidecar: true} },
			want: []string{`Task group "g" task "t": lifecycle sidecar is not allowed with hook "poststop"`}},
		{name: "negative kill_timeout", mutate: func(j *Job) { task(j).KillTimeout = -time.Second },
			want: []string{`Task group "g" task "t": kill_timeout must not be negative, got -1s`}},
		{name: "negative task shutdown_delay", mutate: func(j *Job) { task(j).ShutdownDelay = -2 * time.Second },
			want: []string{`Task group "g" task "t": shutdown_delay must not be negative, got -2s`}},

		// Restart.
		{name: "negative restart attempts", mutate: func(j *Job) { group(j).RestartPolicy.Attempts = -1 },
			want: []string{`Task group "g": restart attempts must not be negative, got -1`}},
		{name: "negative restart interval", mutate: func(j *Job) { group(j).RestartPolicy.Interval = -time.Minute },
			want: []string{`Task group "g": restart interval must not be negative, got -1m0s`}},
		{name: "negative restart delay", mutate: func(j *Job) { task(j).RestartPolicy.Delay = -time.Second },
			want: []string{`Task group "g" task "t": restart delay must not be negative, got -1s`}},
		{name: "unknown restart mode", mutate: func(j *Job) { task(j).RestartPolicy.Mode = "retry" },
			want: []string{`Task group "g" task "t": restart mode must be "fail" or "delay", got "retry"`}},
		{name: "restarts do not fit the interval", mutate: func(j *Job) {
			group(j).RestartPolicy = &RestartPolicy{Attempts: 10, Delay: time.Minute, Interval: 5 * time.Minute, Mode: "delay"}
		}, want: []string{`Task group "g": restart attempts (10) times delay (1m0s) must fit in interval (5m0s)`}},

		// Reschedule.
		{name: "unknown delay function", mutate: func(j *Job) { group(j).ReschedulePolicy.DelayFunction = "linear" },
			want: []string{`Task group "g": reschedule delay_function must be one of constant, exponential, fibonacci, got "linear"`}},
		{name: "negative reschedule attempts", jobType: "batch", mutate: func(j *Job) { group(j).ReschedulePolicy.Attempts = -1 },
			want: []string{`Task group "g": reschedule attempts must not be negative, got -1`}},
		{name: "negative reschedule interval", jobType: "batch", mutate: func(j *Job) { group(j).ReschedulePolicy.Interval = -time.Hour },
			want: []string{
				`Task group "g": reschedule interval must not be negative, got -1h0m0s`,
				`Task group "g": reschedule interval must be greater than zero when attempts is 1 and unlimited is false, got -1h0m0s`,
			}},
		{name: "negative reschedule delay", jobType: "batch", mutate: func(j *Job) { group(j).ReschedulePolicy.Delay = -time.Second },
			want: []string{`Task group "g": reschedule delay must not be negative, got -1s`}},
		{name: "negative reschedule max_delay", jobType: "batch", mutate: func(j *Job) { group(j).ReschedulePolicy.MaxDelay = -time.Second },
			want: []string{`Task group "g": reschedule max_delay must not be negative, got -1s`}},
		{name: "limited reschedule without interval", jobType: "batch", mutate: func(j *Job) { group(j).ReschedulePolicy.Interval = 0 },
			want: []string{`Task group "g": reschedule interval must be greater than zero when attempts is 1 and unlimited is false, got 0s`}},
		{name: "exponential max_delay below delay", mutate: func(j *Job) { group(j).ReschedulePolicy.MaxDelay = 10 * time.Second },
			want: []string{`Task group "g": reschedule max_delay (10s) must not be less than delay (30s) with delay_function "exponential"`}},
		{name: "invalid job reschedule", jobType: "batch", mutate: func(j *Job) {
			j.Reschedule = &ReschedulePolicy{Attempts: -2, Interval: time.Hour, DelayFunction: "constant"}
		}, want: []string{`Job: reschedule attempts must not be negative, got -2`}},
		{name: "reschedule on system group", jobType: "system", mutate: func(j *Job) {
			group(j).ReschedulePolicy = DefaultReschedulePolicy("batch")
		}, want: []string{`Task group "g": Job type "system" does not allow reschedule`}},
		{name: "reschedule on sysbatch job", jobType: "sysbatch", mutate: func(j *Job) {
			j.Reschedule = DefaultReschedulePolicy("batch")
		}, want: []string{`Job type "sysbatch" does not allow reschedule`}},

		// Periodic.
		{name: "periodic on service", mutate: func(j *Job) {
			j.Periodic = &PeriodicConfig{Enabled: true, Spec: "@daily", SpecType: "cron", TimeZone: "UTC"}
		}, want: []string{`Job periodic: Job type "service" does not allow periodic; only batch and sysbatch jobs may be periodic`}},
		{name: "periodic without spec", jobType: "batch", mutate: func(j *Job) {
			j.Periodic = &PeriodicConfig{Enabled: true, SpecType: "cron", TimeZone: "UTC"}
		}, want: []string{`Job periodic: Missing cron spec`}},
		{name: "periodic with spec and specs", jobType: "batch", mutate: func(j *Job) {
			j.Periodic = &PeriodicConfig{Enabled: true, Spec: "@daily", Specs: []string{"@hourly"}, SpecType: "cron", TimeZone: "UTC"}
		}, want: []string{`Job periodic: Set either crons or cron, not both`}},
		{name: "periodic bad cron", jobType: "batch", mutate: func(j *Job) {
			j.Periodic = &PeriodicConfig{Enabled: true, Specs: []string{"@hourly", "61 * * * *"}, SpecType: "cron", TimeZone: "UTC"}
		}, want: []string{`Job periodic: Invalid cron spec "61 * * * *": syntax error in minute field: '61'`}},
		{name: "periodic bad time zone", jobType: "batch", mutate: func(j *Job) {
			j.Periodic = &PeriodicConfig{Enabled: true, Spec: "@daily", SpecType: "cron", TimeZone: "Mars/Olympus_Mons"}
		}, want: []string{`Job periodic: Invalid time_zone "Mars/Olympus_Mons": unknown time zone Mars/Olympus_Mons`}},
		{name: "periodic unknown spec type", jobType: "batch", mutate: func(j *Job) {
			j.Periodic = &PeriodicConfig{Enabled: true, Spec: "@daily", SpecType: "rrule", TimeZone: "UTC"}
		}, want: []string{`Job periodic: spec_type must be "cron", got "rrule"`}},

		// Constraints.
		{name: "null constraint", mutate: func(j *Job) { j.Constraints = []*Constraint{nil} },
			want: []string{`Job constraint #1: Missing definition (null)`}},
		{name: "unknown operator", mutate: func(j *Job) {
			j.Constraints = []*Constraint{{LTarget: "${attr.a}", RTarget: "b", Operand: "~"}}
		}, want: []string{`Job constraint #1: Unknown operator "~"`}},
		{name: "operator without attribute", mutate: func(j *Job) {
			group(j).Constraints = []*Constraint{{RTarget: "linux", Operand: "="}}
		}, want: []string{`Task group "g" constraint #1: Missing attribute for operator "="`}},
		{name: "operator without value", mutate: func(j *Job) {
			task(j).Constraints = []*Constraint{{LTarget: "${attr.a}", Operand: "set_contains"}}
		}, want: []string{`Task group "g" task "t" constraint #1: Missing value for operator "set_contains"`}},
		{name: "is_set without attribute", mutate: func(j *Job) {
			j.Constraints = []*Constraint{{Operand: "is_set"}}
		}, want: []string{`Job constraint #1: Missing attribute for operator "is_set"`}},
		{name: "bad regexp", mutate: func(j *Job) {
			j.Constraints = []*Constraint{{LTarget: "${attr.a}", RTarget: "a(", Operand: "regexp"}}
		}, want: []string{"Job constraint #1: Invalid regexp \"a(\": error parsing regexp: missing closing ): `a(`"}},
		{name: "bad distinct_hosts value", mutate: func(j *Job) {
			j.Constraints = []*Constraint{{RTarget: "yes please", Operand: "distinct_hosts"}}
		}, want: []string{`Job constraint #1: Invalid value "yes please" for distinct_hosts: must be true or false`}},
		{name: "bad distinct_property limit", mutate: func(j *Job) {
			j.Constraints = []*Constraint{{LTarget: "${meta.rack}", RTarget: "0", Operand: "distinct_property"}}
		}, want: []string{`Job constraint #1: Invalid value "0" for distinct_property: must be a positive integer`}},
		{name: "distinct_property without attribute", mutate: func(j *Job) {
			j.Constraints = []*Constraint{{Operand: "distinct_property"}}
		}, want: []string{`Job constraint #1: Missing attribute for operator "distinct_property"`}},

		// Resources and logs.
		{name: "negative cpu", mutate: func(j *Job) { task(j).Resources.CPU = -1 },
			want: []string{`Task group "g" task "t": resources cpu must not be negative, got -1`}},
		{name: "cpu 0 without cores", mutate: func(j *Job) { task(j).Resources.CPU = 0 },
			want: []string{`Task group "g" task "t": resources cpu must be at least 1 MHz unless cores are set`}},
		{name: "negative cores", mutate: func(j *Job) { task(j).Resources.Cores = -2 },
			want: []string{`Task group "g" task "t": resources cores must not be negative, got -2`}},
		{name: "memory below minimum", mutate: func(j *Job) { task(j).Resources.MemoryMB = 9 },
			want: []string{`Task group "g" task "t": resources memory must be at least 10 MB, got 9`}},
		{name: "memory_max below memory", mutate: func(j *Job) { task(j).Resources.MemoryMaxMB = 200 },
			want: []string{`Task group "g" task "t": resources memory_max (200 MB) must not be less than memory (300 MB)`}},
		{name: "negative memory_max", mutate: func(j *Job) { task(j).Resources.MemoryMaxMB = -1 },
			want: []string{`Task group "g" task "t": resources memory_max must not be negative, got -1`}},
		{name: "negative disk", mutate: func(j *Job) { task(j).Resources.DiskMB = -1 },
			want: []string{`Task group "g" task "t": resources disk must not be negative, got -1`}},
		{name: "no log files", mutate: func(j *Job) { task(j).LogConfig.MaxFiles = 0 },
			want: []string{`Task group "g" task "t": logs max_files must be at least 1, got 0`}},
		{name: "no log file size", mutate: func(j *Job) { task(j).LogConfig.MaxFileSizeMB = -1 },
			want: []string{`Task group "g" task "t": logs max_file_size must be at least 1 MB, got -1`}},

		// Artifacts.
		{name: "null artifact", mutate: func(j *Job) { task(j).Artifacts = []*TaskArtifact{nil} },
			want: []string{`Task group "g" task "t" artifact #1: Missing definition (null)`}},
		{name: "artifact without source", mutate: func(j *Job) {
			task(j).Artifacts = []*TaskArtifact{{GetterMode: "any", RelativeDest: "local/"}}
		}, want: []string{`Task group "g" task "t" artifact #1: Missing source`}},
		{name: "artifact with unknown mode", mutate: func(j *Job) {
			task(j).Artifacts = []*TaskArtifact{{GetterSource: "https://x/y", GetterMode: "zip", RelativeDest: "local/"}}
		}, want: []string{`Task group "g" task "t" artifact #1: mode must be one of any, file, dir, got "zip"`}},
		{name: "artifact escaping the allocation", mutate: func(j *Job) {
			task(j).Artifacts = []*TaskArtifact{{GetterSource: "https://x/y", GetterMode: "any", RelativeDest: "../../etc"}}
		}, want: []string{`Task group "g" task "t" artifact #1: destination "../../etc" escapes the allocation directory`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			jobType := tc.jobType
			if jobType == "" {
				jobType = "service"
			}
			j := validJob(jobType)
			tc.mutate(j)

			err := j.Validate()

			var verr *ValidationError
			must.True(t, errors.As(err, &verr), must.Sprintf("want a *ValidationError, got %v", err))
			must.Eq(t, tc.want, messages(verr))
		})
	}
}

func TestValidate_reportsEveryProblemAtOnce(t *testing.T) {
	j := validJob("service")
	j.ID = ""
	j.Priority = 0
	j.Periodic = &PeriodicConfig{Enabled: true, Spec: "bad", SpecType: "cron", TimeZone: "UTC"}
	group(j).Count = -1
	group(j).MaxRunDuration = new(10 * time.Second)
	task(j).Driver = ""
	j.Constraints = []*Constraint{{LTarget: "${attr.a}", RTarget: "(", Operand: "regexp"}}

	err := j.Validate()

	var verr *ValidationError
	must.True(t, errors.As(err, &verr))
	must.SliceLen(t, 8, verr.Errors)
	must.Eq(t, "8 errors occurred:\n"+
		"\t* Missing job ID\n"+
		"\t* Job priority must be between 1 and 100, got 0\n"+
		"\t* Job constraint #1: Invalid regexp \"(\": error parsing regexp: missing closing ): `(`\n"+
		"\t* Job periodic: Job type \"service\" does not allow periodic; only batch and sysbatch jobs may be periodic\n"+
		"\t* Job periodic: Invalid cron spec \"bad\": missing field(s)\n"+
		"\t* Task group \"g\": Count must not be negative, got -1\n"+
		"\t* Task group \"g\": Job type \"service\" does not allow max_run_duration\n"+
		"\t* Task group \"g\" task \"t\": Missing driver\n",
		err.Error())

	var syntaxErr *syntax.Error
	must.True(t, errors.As(err, &syntaxErr), must.Sprint("the regexp's own error is wrapped"))
}

// TestValidate_taskRestartNeedNotFit: as in Nomad, only a group's restart
// block must fit its attempts times its delay in its interval; a task's
// own may restart more slowly than its interval counts.
func TestValidate_taskRestartNeedNotFit(t *testing.T) {
	j := validJob("service")
	j.TaskGroups[0].Tasks[0].RestartPolicy = &RestartPolicy{Attempts: 10, Delay: 15 * time.Second, Interval: 2 * time.Minute, Mode: "delay"}
	must.NoError(t, j.Validate())

	j.TaskGroups[0].RestartPolicy = &RestartPolicy{Attempts: 10, Delay: 15 * time.Second, Interval: 2 * time.Minute, Mode: "delay"}
	must.ErrorContains(t, j.Validate(), "must fit in interval")
}

func TestValidationError_singleError(t *testing.T) {
	err := (&Job{}).Validate()
	must.Error(t, err)

	one := &ValidationError{Errors: []error{errors.New("Missing job ID")}}
	must.Eq(t, "1 error occurred:\n\t* Missing job ID\n", one.Error())
	must.Eq(t, []error{one.Errors[0]}, one.Unwrap())
}

func TestValidate_nilJob(t *testing.T) {
	var j *Job
	must.ErrorContains(t, j.Validate(), "Missing job")
}

// mustProblems holds err, Validate's, to the problems in want; nil want
// is a valid job.
func mustProblems(t *testing.T, want []string, err error) {
	t.Helper()
	if want == nil {
		must.NoError(t, err)
		return
	}
	var verr *ValidationError
	must.True(t, errors.As(err, &verr), must.Sprintf("want a *ValidationError, got %v", err))
	must.Eq(t, want, messages(verr))
}

// messages lists the problems of a validation error as strings.
func messages(v *ValidationError) []string {
	out := make([]string, len(v.Errors))
	for i, err := range v.Errors {
		out[i] = err.Error()
	}
	return out
}
