package jobspec2

import (
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/shoenig/test/must"
)

func TestParse_ErrorsCarryPositions(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "unknown attribute in task",
			src: `job "j" {
  group "g" {
    task "t" {
      driver  = "raw_exec"
      comand  = "/bin/true"
    }
  }
}
`,
			want: []string{`job.hcl:5,7-13: Unsupported argument; An argument named "comand" is not expected here.`},
		},
		{
			name: "unknown block",
			src: `job "j" {
  group "g" {
    migrate {
      max_parallel = 2
    }
  }
}
`,
			want: []string{`job.hcl:3,5-12: "migrate" is a Nomad block that Drover does not support yet; see website/content/docs/differences.md. Ignoring it would change what runs unless it holds only Nomad's defaults (then remove it): a node drain would not pace the allocations it moves.`},
		},
		{
			name: "count of the wrong type",
			src: `job "j" {
  group "g" {
    count = "x"
  }
}
`,
			want: []string{`job.hcl:3,13-16: Incorrect attribute value type; Inappropriate value for attribute "count": a number is required.`},
		},
		{
			name: "bad duration",
			src: `job "j" {
  group "g" {
    max_run_duration = "abc"
  }
}
`,
			want: []string{`job.hcl:3,24-29: Invalid duration; Attribute "max_run_duration" must be a duration`},
		},
		{
			name: "no job block",
			src:  "variable \"x\" {\n  default = 1\n}\n",
			want: []string{`job.hcl:1,1-1: Missing job block`},
		},
		{
			name: "two job blocks",
			src:  "job \"a\" {\n}\n\njob \"b\" {\n}\n",
			want: []string{`job.hcl:4,1-8: Duplicate job block; A jobspec must contain exactly one job block; another was defined at job.hcl:1,1-8.`},
		},
		{
			name: "job without label",
			src:  "job {\n}\n",
			want: []string{`job.hcl:1,5-6: Missing id for job`},
		},
		{
			name: "task without label",
			src:  "job \"j\" {\n  group \"g\" {\n    task {\n    }\n  }\n}\n",
			want: []string{`job.hcl:3,10-11: Missing name for task`},
		},
		{
			name: "lifecycle without hook",
			src:  "job \"j\" {\n  group \"g\" {\n    task \"t\" {\n      lifecycle {\n        sidecar = true\n      }\n    }\n  }\n}\n",
			want: []string{`job.hcl:4,17-17: Missing required argument; The argument "hook" is required`},
		},
		{
			name: "duplicate single block",
			src:  "job \"j\" {\n  group \"g\" {\n    restart {\n    }\n    restart {\n    }\n  }\n}\n",
			want: []string{`job.hcl:5,5-12: Duplicate restart block; Only one restart block is allowed here; another was defined at job.hcl:3,5-12.`},
		},
		{
			name: "duplicate task names",
			src:  "job \"j\" {\n  group \"g\" {\n    task \"t\" {\n    }\n    task \"t\" {\n    }\n  }\n}\n",
			want: []string{`job.hcl:5,5-13: Duplicate task; Task "t" was already defined in group "g" at job.hcl:3,5-13.`},
		},
		{
			name: "meta as argument and block",
			src:  "job \"j\" {\n  meta = { a = \"b\" }\n  meta {\n    c = \"d\"\n  }\n}\n",
			want: []string{`job.hcl:3,3-7: Duplicate meta; meta is already set as an argument at job.hcl:2,3-7`},
		},
		{
			name: "env holding a list",
			src:  "job \"j\" {\n  group \"g\" {\n    task \"t\" {\n      env = { A = [1] }\n    }\n  }\n}\n",
			want: []string{`job.hcl:4,13-24: Incorrect attribute value type; Inappropriate value for attribute "env"`},
		},
		{
			name: "datacenters with a null element",
			src:  "job \"j\" {\n  datacenters = [\"a\", null]\n}\n",
			want: []string{`job.hcl:2,17-28: Invalid list element; Element 1 of attribute "datacenters" is null`},
		},
		{
			name: "periodic without schedule",
			src:  "job \"j\" {\n  periodic {\n    prohibit_overlap = true\n  }\n}\n",
			want: []string{`job.hcl:2,3-11: Missing cron schedule`},
		},
		{
			name: "fractional count",
			src:  "job \"j\" {\n  group \"g\" {\n    count = 1.5\n  }\n}\n",
			want: []string{`job.hcl:3,13-16: Invalid number; Inappropriate value for attribute "count"`},
		},
		{
			name: "syntax error",
			src:  "job \"j\" {\n  type = \n}\n",
			want: []string{`job.hcl:2,10-3,1: Invalid expression`},
		},
		{
			name: "every problem is reported, in source order",
			src: `job "j" {
  priority = "high"
  group "g" {
    count = "x"
    max_run_duration = "abc"
    task "t" {
      bogus = 1
    }
  }
}
`,
			want: []string{
				"job.hcl:2,14-20: Incorrect attribute value type; Inappropriate value for attribute \"priority\"",
				"\njob.hcl:4,13-16: Incorrect attribute value type",
				"\njob.hcl:5,24-29: Invalid duration",
				"\njob.hcl:7,7-12: Unsupported argument",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			job, err := parseString(t, tc.src)
			must.Nil(t, job)
			must.Error(t, err)
			for _, want := range tc.want {
				must.ErrorContains(t, err, want)
			}
			last := -1
			for _, want := range tc.want {
				at := strings.Index(err.Error(), want)
				must.Greater(t, last, at, must.Sprintf("%q out of order", want))
				last = at
			}
		})
	}
}

func TestParse_ErrorExposesDiagnostics(t *testing.T) {
	_, err := parseString(t, "job \"j\" {\n  a = 1\n  b = 2\n}\n")
	var perr *Error
	must.True(t, errors.As(err, &perr))
	must.Len(t, 2, perr.Diagnostics)

	var diags hcl.Diagnostics
	must.True(t, errors.As(err, &diags))
	must.Eq(t, 2, diags[0].Subject.Start.Line)
	must.Eq(t, 3, diags[1].Subject.Start.Line)
}

func TestParse_FailedVariableIsNotReportedAgainAtUse(t *testing.T) {
	src := "variable \"tag\" {\n  type = string\n}\njob \"j\" {\n  name = \"x-${var.tag}\"\n  meta = {\n    tag = var.tag\n  }\n}\n"
	_, err := parseString(t, src)
	must.ErrorContains(t, err, `job.hcl:1,1-15: Missing value for variable; Variable "tag"`)
	must.Len(t, 1, strings.Split(err.Error(), "\n"))
}
