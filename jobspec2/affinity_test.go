package jobspec2

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestAffinity_Levels(t *testing.T) {
	job := mustParseString(t, `job "j" {
  affinity {
    attribute = node.class
    value     = "compute"
    weight    = "90"
  }
  group "g" {
    affinity {
      attribute = "${meta.rack}"
      operator  = "regexp"
      value     = "^r[12]$"
      weight    = -40
    }
    task "t" {
      driver = "raw_exec"
      affinity {
        attribute = "${attr.cpu.arch}"
        value     = "amd64"
      }
    }
  }
}`)
	must.Eq(t, []*api.Affinity{{LTarget: "${node.class}", RTarget: "compute", Operand: "=", Weight: ptr[int8](90)}}, job.Affinities)
	must.Eq(t, []*api.Affinity{{LTarget: "${meta.rack}", RTarget: "^r[12]$", Operand: "regexp", Weight: ptr[int8](-40)}}, job.TaskGroups[0].Affinities)
	must.Eq(t, []*api.Affinity{{LTarget: "${attr.cpu.arch}", RTarget: "amd64", Operand: "="}}, job.TaskGroups[0].Tasks[0].Affinities)
}

func TestAffinity_Errors(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`attribute = "${meta.a}"
    value = "x"
    weight = 101`, `job.hcl:5,14-17: Invalid affinity weight; An affinity's weight is between -100 (avoid) and 100 (prefer) and not zero; got 101.`},
		{`attribute = "${meta.a}"
    value = "x"
    weight = 0`, `job.hcl:5,14-15: Invalid affinity weight`},
		{`value = "x"`, `job.hcl:2,3-11: Missing affinity attribute`},
		{`attribute = "${meta.a}"`, `job.hcl:2,3-11: Missing affinity value`},
		{`attribute = "${meta.a}"
    value = "x"
    spread = 1`, `job.hcl:5,5-11: Unsupported argument`},
	} {
		_, err := parseString(t, "job \"j\" {\n  affinity {\n    "+tc.body+"\n  }\n}")
		must.ErrorContains(t, err, tc.want)
	}
}
