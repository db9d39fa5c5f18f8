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

// In a bridge-mode allocation the NOMAD_ALLOC_* variables give each port
// in the allocation's namespace; without a network status there are none.
func TestTaskEnv_AllocPortVariables(t *testing.T) {
	task := testTask("web", nil)
	alloc := testAlloc(structs.JobTypeService, task)
	alloc.Networks = []*structs.NetworkResource{{
		Mode: "bridge", IP: "127.0.0.1",
		DynamicPorts: []structs.Port{{Label: "http", Value: 23456, To: 8080}, {Label: "raw", Value: 23457}},
	}}
	ad, err := allocdir.New("/data/allocs", alloc.ID)
	must.NoError(t, err)
	td, err := ad.TaskDir("web")
	must.NoError(t, err)
	vars := buildTaskEnv(alloc, task, td, &structs.Node{}).Map()
	must.MapNotContainsKey(t, vars, "NOMAD_ALLOC_IP_http")

	alloc.NetworkStatus = &structs.AllocNetworkStatus{InterfaceName: "eth0", Address: "172.26.64.7"}
	vars = buildTaskEnv(alloc, task, td, &structs.Node{}).Map()
	for k, v := range map[string]string{
		"NOMAD_ALLOC_INTERFACE_http": "eth0",
		"NOMAD_ALLOC_IP_http":        "172.26.64.7",
		"NOMAD_ALLOC_PORT_http":      "8080",
		"NOMAD_ALLOC_ADDR_http":      "172.26.64.7:8080",
		"NOMAD_ALLOC_PORT_raw":       "23457",
		"NOMAD_HOST_ADDR_http":       "127.0.0.1:23456",
		"NOMAD_PORT_http":            "8080",
	} {
		must.Eq(t, v, vars[k], must.Sprint(k))
	}
}
