package structs

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func TestValidate_services(t *testing.T) {
	const at = `Task group "g"`
	cases := []struct {
		name  string
		group []*Service
		task  []*Service
		want  []string
	}{
		{name: "valid", group: []*Service{
			{Name: "web", PortLabel: "http", Provider: "nomad", Tags: []string{"a"}, TaskName: "t", AddressMode: "host"},
			{Name: "web", PortLabel: "admin", Provider: "nomad"},
			{Name: "${JOB}-web", Provider: "nomad"},
		}, task: []*Service{{Name: "inner", PortLabel: "9000", AddressMode: "driver", Provider: "nomad"}}},
		{name: "provider left out", group: []*Service{{Name: "web", PortLabel: "http"}}},
		{name: "bad fields", group: []*Service{{
			Name: "-web", Provider: "etcd", AddressMode: "bridge", PortLabel: "nope", Tags: []string{""}, TaskName: "other",
		}}, want: []string{
			at + ` service "-web": service name "-web" must be 1 to 63 letters, digits and '-', not starting or ending with '-' (RFC 1123)`,
			at + ` service "-web": provider must be "nomad" or "consul", got "etcd"`,
			at + ` service "-web": address_mode must be "auto", "host", "driver" or "alloc", got "bridge"`,
			at + ` service "-web": port "nope" is not a port label of the group's network block`,
			at + ` service "-web": tag "" must be non-empty and printable`,
			at + ` service "-web": task "other" is not a task of the group`,
		}},
		{name: "address with host mode", group: []*Service{{Name: "a", Address: "10.0.0.1", AddressMode: "host"}},
			want: []string{at + ` service "a": address may be set only with address_mode "auto", got "host"`}},
		{name: "numeric port", task: []*Service{{Name: "a", PortLabel: "8080"}, {Name: "b", PortLabel: "0", AddressMode: "alloc"}},
			want: []string{
				at + ` task "t" service "a": port "8080" is a number: give a port label of the group's network block, or set address_mode = "driver" or "alloc"`,
				at + ` task "t" service "b": port 0 must be between 1 and 65535`,
			}},
		{name: "duplicate", group: []*Service{{Name: "a", PortLabel: "http"}, {Name: "a", PortLabel: "http"}},
			want: []string{at + ` service "a": service is defined twice with port "http"`}},
		{name: "mixed providers", group: []*Service{{Name: "a", Provider: "nomad"}}, task: []*Service{{Name: "b"}},
			want: []string{at + `: services of one group must all have the same provider, got consul and nomad`}},
		{name: "other task", task: []*Service{{Name: "a", TaskName: "u"}},
			want: []string{at + ` task "t" service "a": task "u": a task's service belongs to the task itself`}},
		{name: "checks", group: []*Service{{Name: "a", PortLabel: "http", Checks: []ServiceCheck{
			{Type: "http", Path: "/health", Interval: time.Second, Timeout: 2 * time.Second, Header: map[string][]string{"X": {"1"}}},
			{Type: "tcp", PortLabel: "admin", Interval: 10 * time.Second, Timeout: time.Second, InitialStatus: "passing"},
			{Type: "http", Protocol: "ftp", Interval: time.Millisecond, InitialStatus: "ok", PortLabel: "nope"},
			{Type: "script", Interval: time.Second, Timeout: time.Second},
			{Type: "ttl", Interval: time.Second, Timeout: time.Second},
		}}}, want: []string{
			at + ` service "a" check #3: an http check needs a path`,
			at + ` service "a" check #3: protocol must be "http" or "https", got "ftp"`,
			at + ` service "a" check #3: interval must be at least 1s, got 1ms`,
			at + ` service "a" check #3: timeout must be at least 1s, got 0s`,
			at + ` service "a" check #3: initial_status must be "passing", "warning" or "critical", got "ok"`,
			at + ` service "a" check #3: port "nope" is not a port label of the group's network block`,
			at + ` service "a" check #4: a script check needs a command`,
			at + ` service "a" check #4: a script check of a group's service must name the task it runs in (task, of the check or of the service)`,
			at + ` service "a" check #5: type must be "http", "tcp" or "script", got "ttl"`,
		}},
		{name: "script checks", group: []*Service{{Name: "a", TaskName: "t", Checks: []ServiceCheck{
			{Type: "script", Command: "/bin/true", Interval: time.Second, Timeout: time.Second},
			{Type: "script", Command: "/bin/true", TaskName: "u", Interval: time.Second, Timeout: time.Second},
			{Type: "tcp", Command: "/bin/true", PortLabel: "http", Interval: time.Second, Timeout: time.Second},
		}}}, task: []*Service{{Name: "b", Checks: []ServiceCheck{
			{Type: "script", Command: "/bin/true", Args: []string{"-x"}, Interval: time.Second, Timeout: time.Second},
			{Type: "script", Command: "/bin/true", TaskName: "u", Interval: time.Second, Timeout: time.Second},
		}}}, want: []string{
			at + ` service "a" check #2: task "u" is not a task of the group`,
			at + ` service "a" check #3: command and args are for script checks only, not "tcp"`,
			at + ` task "t" service "b" check #2: task "u": a task's service checks run in the task itself`,
		}},
		{name: "check thresholds and restart", group: []*Service{{Name: "a", PortLabel: "http", Checks: []ServiceCheck{
			{Type: "tcp", Interval: time.Second, Timeout: time.Second, CheckRestart: &CheckRestart{Limit: 3}},
			{Type: "tcp", Interval: time.Second, Timeout: time.Second, TaskName: "t", CheckRestart: &CheckRestart{Limit: -1, Grace: -time.Second}},
			{Type: "tcp", Interval: time.Second, Timeout: time.Second, FailuresBeforeWarning: 3, FailuresBeforeCritical: 2, SuccessBeforePassing: -1, OnUpdate: "sometimes"},
		}}}, want: []string{
			at + ` service "a" check #1: check_restart in a group's service needs the task to restart: set task on the service or the check`,
			at + ` service "a" check #2: check_restart limit must not be negative, got -1`,
			at + ` service "a" check #2: check_restart grace must not be negative, got -1s`,
			at + ` service "a" check #3: on_update must be "require_healthy", "ignore_warnings" or "ignore", got "sometimes"`,
			at + ` service "a" check #3: success_before_passing must be between 0 and 1000, got -1`,
			at + ` service "a" check #3: failures_before_warning (3) must not exceed failures_before_critical (2)`,
		}},
		{name: "too many checks", group: []*Service{{Name: "a", Checks: make([]ServiceCheck, MaxChecksPerService+1)}},
			want: []string{at + ` service "a": a service may have at most 16 checks, got 17`}},
		{name: "null", group: []*Service{nil}, want: []string{at + ` service #1: service block must not be null`}},
		{name: "too many", group: make([]*Service, MaxServicesPerGroup+1),
			want: []string{at + `: a group and its tasks may have at most 64 service blocks, got 65`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := validJob("service")
			group(j).Networks = []*NetworkResource{{DynamicPorts: []Port{{Label: "http"}, {Label: "admin"}}}}
			group(j).Services = tc.group
			task(j).Services = tc.task
			mustProblems(t, tc.want, j.Validate())
		})
	}
}

func TestCanonicalize_serviceNames(t *testing.T) {
	j := &Job{ID: "example", Name: "shop", Type: JobTypeService, TaskGroups: []*TaskGroup{{
		Name: "g", Services: []*Service{{}, {Name: "kept"}},
		Tasks: []*Task{{Name: "t", Driver: "raw_exec", Services: []*Service{{}}}},
	}}}
	j.Canonicalize()
	must.Eq(t, "shop-g", j.TaskGroups[0].Services[0].Name)
	must.Eq(t, "kept", j.TaskGroups[0].Services[1].Name)
	must.Eq(t, "shop-g-t", j.TaskGroups[0].Tasks[0].Services[0].Name)
}

func TestJobWarnings_services(t *testing.T) {
	j := validJob("service")
	must.SliceEmpty(t, j.Warnings())
	task(j).Services = []*Service{{Name: "a"}}
	must.SliceEmpty(t, j.Warnings(), must.Sprint("a service without checks is registered as Nomad's"))
	task(j).Services[0].Checks = []ServiceCheck{{Type: "tcp"}, {Type: "http"}}
	must.SliceEmpty(t, j.Warnings(), must.Sprint("checks run: nothing to warn about"))
}

func TestValidate_scriptCheckDriver(t *testing.T) {
	j := validJob("service")
	task(j).Driver = "mock_driver"
	task(j).Services = []*Service{{Name: "a", Checks: []ServiceCheck{
		{Type: "script", Command: "/bin/true", Interval: time.Second, Timeout: time.Second},
	}}}
	mustProblems(t, []string{`Task group "g" task "t" service "a" check #1: a script check runs in task "t", whose driver "mock_driver" cannot run a command in a task (drivers that can: docker, exec, exec2, java, raw_exec)`}, j.Validate())

	// An isolated task's script runs inside its isolation.
	task(j).Driver = "exec"
	must.NoError(t, j.Validate())
}

func TestCanonicalize_checkRestartMerge(t *testing.T) {
	j := &Job{ID: "example", Name: "shop", Type: JobTypeService, TaskGroups: []*TaskGroup{{
		Name: "g",
		Services: []*Service{{TaskName: "t", CheckRestart: &CheckRestart{Limit: 3, Grace: 30 * time.Second}, Checks: []ServiceCheck{
			{Type: "tcp"},
			{Type: "tcp", TaskName: "u", CheckRestart: &CheckRestart{Limit: 5, IgnoreWarnings: true}},
		}}},
		Tasks: []*Task{{Name: "t", Driver: "raw_exec"}},
	}}}
	j.Canonicalize()
	checks := j.TaskGroups[0].Services[0].Checks
	must.Eq(t, &CheckRestart{Limit: 3, Grace: 30 * time.Second}, checks[0].CheckRestart)
	must.Eq(t, "t", checks[0].TaskName, must.Sprint("a group service's check runs in the service's task"))
	must.Eq(t, &CheckRestart{Limit: 5, Grace: 30 * time.Second, IgnoreWarnings: true}, checks[1].CheckRestart)
	must.Eq(t, "u", checks[1].TaskName)
}
