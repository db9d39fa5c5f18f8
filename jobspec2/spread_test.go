package jobspec2

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

func TestSpread_Levels(t *testing.T) {
	job := mustParseString(t, `job "j" {
  spread {
    attribute = "${node.datacenter}"
    weight    = 100
    target "us-east1" {
      percent = 60
    }
    target "us-west1" {
      percent = 40
    }
  }
  group "g" {
    spread {
      attribute = meta.rack
    }
    task "t" { driver = "raw_exec" }
  }
}`)
	must.Eq(t, []*api.Spread{{Attribute: "${node.datacenter}", Weight: ptr[int8](100), SpreadTarget: []*api.SpreadTarget{
		{Value: "us-east1", Percent: 60}, {Value: "us-west1", Percent: 40},
	}}}, job.Spreads)
	must.Eq(t, []*api.Spread{{Attribute: "${meta.rack}"}}, job.TaskGroups[0].Spreads)
}

func TestSpread_Errors(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`attribute = "${meta.a}"
    weight = 0`, `job.hcl:4,14-15: Invalid spread weight; A spread's weight is between 1 and 100; got 0.`},
		{`attribute = "${meta.a}"
    target "x" {
      percent = 101
    }`, `job.hcl:5,17-20: Invalid spread target percent`},
		{`weight = 10`, `job.hcl:2,3-9: Missing spread attribute`},
		{`attribute = "${meta.a}"
    target {
    }`, `job.hcl:4,12-13: Missing value for target`},
	} {
		_, err := parseString(t, "job \"j\" {\n  spread {\n    "+tc.body+"\n  }\n}")
		must.ErrorContains(t, err, tc.want)
	}
}
