package jobcheck

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/structs"
)

func TestSubmitted_dockerPortsNameTheGroupsPorts(t *testing.T) {
	job := rawExecJob(nil)
	tg := job.TaskGroups[0]
	tg.Tasks[0] = &structs.Task{Name: "redis", Driver: "docker", Config: map[string]any{"image": "redis", "ports": []any{"db", "${NOMAD_META_port}"}}}
	tg.Networks = []*structs.NetworkResource{{DynamicPorts: []structs.Port{{Label: "db", To: 6379}}}}
	job.Canonicalize()
	must.NoError(t, Submitted(job, structs.DefaultJobLimits()))

	tg.Tasks[0].Config["ports"] = []any{"db", "dbb"}
	must.ErrorContains(t, Submitted(job, structs.DefaultJobLimits()),
		`Task group "g" task "redis": docker config key "ports": port "dbb" is not a port of the group's network block nor of the task's`)

	tg.Networks = nil
	must.ErrorContains(t, Submitted(job, structs.DefaultJobLimits()), `port "db" is not a port`)
}

func TestSubmitted_dockerPortMapNamesTheGroupsPorts(t *testing.T) {
	job := rawExecJob(nil)
	tg := job.TaskGroups[0]
	tg.Tasks[0] = &structs.Task{
		Name: "traefik", Driver: "docker",
		Config: map[string]any{"image": "traefik", "port_map": []any{map[string]any{"proxy": 80, "admin": 8080}}},
		// The task's own network joins the group's when canonicalised.
		Networks: []*structs.NetworkResource{{ReservedPorts: []structs.Port{{Label: "proxy", Value: 80}}, DynamicPorts: []structs.Port{{Label: "admin"}}}},
	}
	job.Canonicalize()
	must.NoError(t, Submitted(job, structs.DefaultJobLimits()))

	tg.Tasks[0].Config["port_map"] = map[string]any{"proxy": 80, "admn": 8080}
	must.ErrorContains(t, Submitted(job, structs.DefaultJobLimits()),
		`Task group "g" task "traefik": docker config key "port_map": port "admn" is not a port of the group's network block nor of the task's`)
}
