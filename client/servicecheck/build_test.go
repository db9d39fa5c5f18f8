package servicecheck

import (
	"context"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

func buildAlloc(group []*structs.Service, task []*structs.Service) *structs.Allocation {
	return &structs.Allocation{
		ID: "a1", Name: "j.g[0]", TaskGroup: "g",
		Job: &structs.Job{ID: "j", TaskGroups: []*structs.TaskGroup{{
			Name: "g", Services: group,
			Tasks: []*structs.Task{{Name: "t", Driver: "raw_exec", Services: task}},
		}}},
		Networks: []*structs.NetworkResource{{IP: "127.0.0.1", DynamicPorts: []structs.Port{
			{Label: "http", Value: 25001, To: 8080}, {Label: "admin", Value: 25002},
		}}},
	}
}

func check(typ string, mod func(*structs.ServiceCheck)) structs.ServiceCheck {
	c := structs.ServiceCheck{Name: typ, Type: typ, Path: "/health", Interval: time.Second, Timeout: time.Second}
	if mod != nil {
		mod(&c)
	}
	return c
}

func TestBuild_owners(t *testing.T) {
	group := []*structs.Service{
		{Name: "grp", PortLabel: "http", Checks: []structs.ServiceCheck{check("tcp", nil)}},
		{Name: "grp-task", PortLabel: "http", TaskName: "t", Checks: []structs.ServiceCheck{check("http", nil)}},
	}
	task := []*structs.Service{{Name: "tsk", PortLabel: "admin", Checks: []structs.ServiceCheck{
		check("script", func(c *structs.ServiceCheck) { c.Command = "/bin/check"; c.Args = []string{"${NOMAD_TASK_NAME}"} }),
	}}}
	alloc := buildAlloc(group, task)
	env := func(s string) string {
		if s == "${NOMAD_TASK_NAME}" {
			return "t"
		}
		return s
	}

	g := Build(Owner{Alloc: alloc, Env: env})
	must.Len(t, 1, g)
	must.Eq(t, "grp", g[0].Service)
	must.Eq(t, "", g[0].Task)
	must.Eq(t, "j.g[0]", g[0].Group)
	must.Eq[Prober](t, TCPProbe{Addr: "127.0.0.1:25001"}, g[0].Probe)

	ts := Build(Owner{Alloc: alloc, Task: alloc.Job.TaskGroups[0].Tasks[0], Env: env})
	must.Len(t, 2, ts)
	must.Eq(t, "grp-task", ts[0].Service)
	must.Eq(t, "t", ts[0].Task)
	must.Eq(t, "http://127.0.0.1:25001/health", ts[0].Probe.(HTTPProbe).URL)
	must.Eq(t, []string{"/bin/check", "t"}, ts[1].Probe.(ScriptProbe).Command)

	again := Build(Owner{Alloc: alloc, Task: alloc.Job.TaskGroups[0].Tasks[0], Env: env})
	must.Eq(t, ts[0].ID, again[0].ID, must.Sprint("IDs are stable"))
	must.NotEq(t, ts[0].ID, ts[1].ID)
}

func TestBuild_address(t *testing.T) {
	cases := []struct {
		name string
		svc  *structs.Service
		def  structs.ServiceCheck
		want string
		// guarded: the job named where the check connects, and the
		// client's address policy vets it.
		guarded bool
	}{
		{name: "service port, host", svc: &structs.Service{PortLabel: "http"}, def: check("tcp", nil), want: "127.0.0.1:25001"},
		{name: "check port", svc: &structs.Service{PortLabel: "http"}, def: check("tcp", func(c *structs.ServiceCheck) { c.PortLabel = "admin" }), want: "127.0.0.1:25002"},
		{name: "driver mode", svc: &structs.Service{PortLabel: "http"}, def: check("tcp", func(c *structs.ServiceCheck) { c.AddressMode = "driver" }), want: "127.0.0.1:8080"},
		{name: "numeric port", svc: &structs.Service{PortLabel: "9000"}, def: check("tcp", func(c *structs.ServiceCheck) { c.AddressMode = "alloc" }), want: "127.0.0.1:9000", guarded: true},
		{name: "service address", svc: &structs.Service{PortLabel: "http", Address: "10.1.2.3"}, def: check("tcp", nil), want: "10.1.2.3:25001", guarded: true},
		{name: "service address, check mode host", svc: &structs.Service{PortLabel: "http", Address: "10.1.2.3"}, def: check("tcp", func(c *structs.ServiceCheck) { c.AddressMode = "host" }), want: "127.0.0.1:25001"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.svc.Name = "s"
			tc.svc.Checks = []structs.ServiceCheck{tc.def}
			got := Build(Owner{Alloc: buildAlloc([]*structs.Service{tc.svc}, nil)})
			must.Len(t, 1, got)
			probe, ok := got[0].Probe.(TCPProbe)
			must.True(t, ok)
			must.Eq(t, tc.want, probe.Addr)
			must.Eq(t, tc.guarded, probe.Control != nil)
		})
	}
	// A check the job points at the client's own machine or the cloud's
	// metadata service is refused before it connects, its output saying
	// nothing of what answers there.
	t.Run("guarded address refused", func(t *testing.T) {
		for _, addr := range []string{"127.0.0.1", "169.254.169.254"} {
			svc := &structs.Service{Name: "s", PortLabel: "http", Address: addr, Checks: []structs.ServiceCheck{check("http", nil)}}
			got := Build(Owner{Alloc: buildAlloc([]*structs.Service{svc}, nil)})
			r := got[0].Probe.Probe(context.Background())
			must.Eq(t, Critical, r.Health)
			must.StrContains(t, r.Output, "refused by the client's policy")
		}
	})
	t.Run("no port", func(t *testing.T) {
		got := Build(Owner{Alloc: buildAlloc([]*structs.Service{{Name: "s", Checks: []structs.ServiceCheck{check("tcp", nil)}}}, nil)})
		r := got[0].Probe.Probe(context.Background())
		must.Eq(t, Critical, r.Health)
		must.StrContains(t, r.Output, "no port")
	})
}

func TestBuild_modeAndDefaults(t *testing.T) {
	svc := &structs.Service{Name: "s", PortLabel: "http", Checks: []structs.ServiceCheck{
		check("tcp", func(c *structs.ServiceCheck) {
			c.Name = ""
			c.OnUpdate = "ignore"
			c.InitialStatus = "warning"
			c.FailuresBeforeCritical = 3
		}),
	}}
	got := Build(Owner{Alloc: buildAlloc([]*structs.Service{svc}, nil)})[0]
	must.Eq(t, `service: "s" check`, got.Name)
	must.Eq(t, ModeReadiness, got.Mode)
	must.Eq(t, Warning, got.Initial)
	must.Eq(t, 3, got.failuresBeforeCritical)
}
