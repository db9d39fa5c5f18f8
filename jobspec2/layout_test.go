package jobspec2

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestCompactLayout(t *testing.T) {
	job := mustParseString(t, `job "c" { type = "batch" datacenters = ["dc1"] group "g" { count = 2 task "t" { driver = "raw_exec" config { command = "/bin/echo" args = ["a", "b"] } env { A = "1" B = "${NOMAD_TASK_NAME}" } } } }`)
	must.Eq(t, "batch", *job.Type)
	must.Eq(t, []string{"dc1"}, job.Datacenters)
	must.Eq(t, 2, *job.TaskGroups[0].Count)
	task := job.TaskGroups[0].Tasks[0]
	must.Eq(t, "raw_exec", task.Driver)
	must.Eq(t, map[string]any{"command": "/bin/echo", "args": []any{"a", "b"}}, task.Config)
	must.Eq(t, map[string]string{"A": "1", "B": "${NOMAD_TASK_NAME}"}, task.Env)
}

func TestCompactLayout_PositionsPointAtTheOriginalText(t *testing.T) {
	src := "job \"c\" {\n  group \"g\" { count = 1 task \"t\" { driver = \"raw_exec\" bogus = 1 } }\n  nope = 2\n}\n"
	_, err := parseString(t, src)
	must.ErrorContains(t, err, `job.hcl:2,56-61: Unsupported argument; An argument named "bogus" is not expected here.`)
	must.ErrorContains(t, err, `job.hcl:3,3-7: Unsupported argument; An argument named "nope" is not expected here.`)
}

func TestCompactLayout_UnfixableKeepsStrictErrors(t *testing.T) {
	// The relaid text would still be wrong; the report is about what was
	// written, not about the retry.
	_, err := parseString(t, "job \"c\" { group \"g\" { count = } }\n")
	must.ErrorContains(t, err, "job.hcl:1,11-18: Argument definition required")
}

func TestLayoutFixPositionMapping(t *testing.T) {
	src := []byte("a { b = 1 c = 2 }\n")
	fix := relaxLayout(src, "x.hcl")
	must.NotNil(t, fix)
	must.Eq(t, "a {\nb = 1\nc = 2\n}\n", string(fix.src))
	// "c" is at line 3, column 1 of the relaid text and line 1, column 11
	// of the original.
	got := fix.pos(pos(3, 1, 10))
	must.Eq(t, 1, got.Line)
	must.Eq(t, 11, got.Column)
	must.Eq(t, 10, got.Byte)
}
