package taskrunner

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/allocdir"
	"github.com/drover-io/drover/structs"
)

func TestTaskEnv_PortVariables(t *testing.T) {
	task := testTask("web", nil)
	task.Env = map[string]string{"LISTEN": "--listen=${NOMAD_ADDR_http}"}
	alloc := testAlloc(structs.JobTypeService, task)
	alloc.Networks = []*structs.NetworkResource{{
		Mode: "host", IP: "127.0.0.1",
		ReservedPorts: []structs.Port{{Label: "http", Value: 8080, To: 80}},
		DynamicPorts:  []structs.Port{{Label: "prom-exporter", Value: 23456}, {Label: "admin", Value: 23457, To: -1}},
	}}
	ad, err := allocdir.New("/data/allocs", alloc.ID)
	must.NoError(t, err)
	td, err := ad.TaskDir("web")
	must.NoError(t, err)
	env := buildTaskEnv(alloc, task, td, &structs.Node{})
	vars := env.Map()
	for k, v := range map[string]string{
		"NOMAD_IP_http":        "127.0.0.1",
		"NOMAD_PORT_http":      "80",
		"NOMAD_ADDR_http":      "127.0.0.1:80",
		"NOMAD_HOST_IP_http":   "127.0.0.1",
		"NOMAD_HOST_PORT_http": "8080",
		"NOMAD_HOST_ADDR_http": "127.0.0.1:8080",

		"NOMAD_PORT_prom_exporter":      "23456",
		"NOMAD_ADDR_prom_exporter":      "127.0.0.1:23456",
		"NOMAD_HOST_PORT_prom_exporter": "23456",
		"NOMAD_PORT_admin":              "23457",

		"LISTEN": "--listen=127.0.0.1:80",
	} {
		must.Eq(t, v, vars[k], must.Sprint(k))
	}
	must.Eq(t, "-p 23456", env.replace("-p ${NOMAD_PORT_prom_exporter}"), must.Sprint("config values resolve the port variables"))
	must.MapNotContainsKey(t, vars, "NOMAD_PORT_prom-exporter")
}

func TestTaskEnv_NoPortsNoVariables(t *testing.T) {
	env, _, _ := testEnv(t)
	for k := range env.Map() {
		must.False(t, len(k) > 11 && k[:11] == "NOMAD_PORT_", must.Sprint(k))
	}
}
