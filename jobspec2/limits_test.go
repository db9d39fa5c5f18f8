package jobspec2

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

// inJob puts expr in a job's meta, where any value may go.
func inJob(expr string) string {
	return "job \"j\" {\n  meta = { a = " + expr + " }\n}\n"
}

// A source nested far deeper than the limit would overflow the parser's
// stack, which ends the process: each is refused before it is parsed. If
// the guard missed one, this test would not fail, it would crash.
func TestParse_refusesDeepNestingBeforeParsing(t *testing.T) {
	const n = 100_000
	cases := map[string]string{
		"brackets":       inJob(strings.Repeat("[", n)),
		"parentheses":    inJob(strings.Repeat("(", n) + "1" + strings.Repeat(")", n)),
		"objects":        inJob(strings.Repeat("{a=", n) + "1" + strings.Repeat("}", n)),
		"blocks":         "job \"j\" {\n" + strings.Repeat("a {\n", n) + strings.Repeat("}\n", n) + "}\n",
		"templates":      inJob(strings.Repeat(`"${`, n/2) + "1" + strings.Repeat(`}"`, n/2)),
		"if directives":  inJob(`"` + strings.Repeat("%{ if true }", n/2) + `"`),
		"for directives": inJob(`"` + strings.Repeat("%{ for x in [1] }", n/4) + `"`),
		"conditionals":   inJob(strings.Repeat("true ? 1 : ", n/2) + "1"),
		"negations":      inJob(strings.Repeat("!", n) + "true"),
		"minus signs":    inJob(strings.Repeat("-", n) + "1"),
		"additions":      inJob(strings.Repeat("1 + ", n) + "1"),
		"indexes":        inJob("[1]" + strings.Repeat("[0]", n)),
		"splats":         inJob("[1]" + strings.Repeat(".*", n)),
		"across lines":   inJob("(" + strings.Repeat("true ?\n1 :\n", n/4) + "1)"),
		"for object":     inJob("{\nfor k, v in {} :\nk => " + strings.Repeat("v ?\n", n/4) + "1 : 2 }"),
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ParseWithConfig(&ParseConfig{Path: "deep.hcl", Body: []byte(src)})
			must.ErrorContains(t, err, "Jobspec nested too deeply")
			must.ErrorContains(t, err, "more than the limit of 100 (limits.hcl_max_depth)")
			must.ErrorContains(t, err, "deep.hcl:")
		})
	}
}

// What the lexer reads as text (strings, heredocs, comments) does not nest,
// and long flat constructs are not deep: none of these is refused.
func TestParse_nestingCountsOnlyWhatNests(t *testing.T) {
	const n = 5_000
	elems := strings.Repeat("[1, -2, 3 + 4, true ? 5 : 6], ", n)
	var attrs strings.Builder
	for i := range 500 {
		fmt.Fprintf(&attrs, "    a%d = 1 + 2 * 3 > 4 ? -1 : !true ? 2 : 3 # [[[[ (((( \n", i)
	}
	cases := map[string]string{
		"brackets in a string":  inJob(`"` + strings.Repeat("[({", n) + `"`),
		"brackets in a heredoc": "job \"j\" {\n  meta = { a = <<EOT\n" + strings.Repeat("[({ ${1} ", n) + "\nEOT\n  }\n}\n",
		"brackets in comments":  "# " + strings.Repeat("[", n) + "\n// " + strings.Repeat("(", n) + "\n/* " + strings.Repeat("{", n) + " */\n" + inJob("1"),
		"a long list":           inJob("jsonencode([" + elems + "])"),
		"many attributes":       "job \"j\" {\n  meta {\n" + attrs.String() + "  }\n}\n",
		"many templates":        inJob(`"` + strings.Repeat("${1}%{ if true }x%{ endif }", n) + `"`),
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ParseWithConfig(&ParseConfig{Path: "flat.hcl", Body: []byte(src)})
			must.NoError(t, err)
		})
	}
}

func TestParse_refusesLargeSources(t *testing.T) {
	big := inJob(`"` + strings.Repeat("x", DefaultMaxSize) + `"`)
	_, err := ParseWithConfig(&ParseConfig{Path: "big.hcl", Body: []byte(big)})
	must.ErrorContains(t, err, fmt.Sprintf("big.hcl is %d bytes, more than the limit of 1048576 bytes (limits.hcl_max_size)", len(big)))

	_, err = ParseWithConfig(&ParseConfig{Path: "small.hcl", Body: []byte(inJob("1")), Limits: Limits{MaxSize: 10}})
	must.ErrorContains(t, err, "more than the limit of 10 bytes (limits.hcl_max_size)")

	// Variables count as sources of their own.
	spec := "variable \"v\" {}\n" + inJob("var.v")
	_, err = ParseWithConfig(&ParseConfig{Path: "j.hcl", Body: []byte(spec), Limits: Limits{MaxSize: 100},
		VarContent: `v = "` + strings.Repeat("y", 200) + `"`})
	must.ErrorContains(t, err, "<variables> is 206 bytes, more than the limit of 100 bytes (limits.hcl_max_size)")
	typed := "variable \"v\" {\n  type = list(any)\n}\n" + inJob("jsonencode(var.v)")
	_, err = ParseWithConfig(&ParseConfig{Path: "j.hcl", Body: []byte(typed), ArgVars: []string{"v=" + strings.Repeat("[", 100_000)}})
	must.ErrorContains(t, err, "<value for var.v>:1,51-52: Jobspec nested too deeply")

	// A file is read no further than the limit.
	dir := t.TempDir()
	path := filepath.Join(dir, "vars.hcl")
	must.NoError(t, os.WriteFile(path, []byte(`v = "`+strings.Repeat("z", 300)+`"`), 0o600))
	_, err = ParseWithConfig(&ParseConfig{Path: "j.hcl", Body: []byte(spec), Limits: Limits{MaxSize: 200}, VarFiles: []string{path}})
	must.ErrorContains(t, err, "vars.hcl is more than 200 bytes, the limit (limits.hcl_max_size)")
}

// Each of these asks for far more work or memory than any machine has, in
// a few hundred bytes; each is stopped by the evaluation budget.
func TestParse_boundsEvaluationWork(t *testing.T) {
	var doubling strings.Builder
	doubling.WriteString("locals {\n  s0 = \"xxxxxxxxxxxxxxxx\"\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&doubling, "  s%d = \"${local.s%d}${local.s%d}\"\n", i, i-1, i-1)
	}
	doubling.WriteString("}\n" + inJob("local.s40"))

	work := "Jobspec evaluation stopped; Evaluating the jobspec takes more than 16000000 units of work, the limit (limits.hcl_max_eval_work)"
	cases := []struct {
		name, src, want string
	}{
		{"nested for", inJob("jsonencode([for a in range(1000) : [for b in range(1000) : [for c in range(1000) : c]]])"), work},
		{"for in a template", inJob(`"%{ for a in range(1000) }%{ for b in range(1000) }%{ for c in range(1000) }x%{ endfor }%{ endfor }%{ endfor }"`), work},
		{"strings doubled through locals", doubling.String(), work},
		{"a wide format", inJob(`format("%999999999d", 1)`), work},
		{"formatlist", inJob(`jsonencode(formatlist("%99999999s", range(100)))`), work},
		{"indent", inJob(`indent(999999999, "a\nb")`), work},
		{"setproduct", inJob("jsonencode(setproduct(range(1000), range(1000), range(1000)))"), work},
		{"replace", inJob(`replace(join("", [for i in range(1000) : "aaaaaaaaaa"]), "a", join("", [for i in range(1000) : "bbbbbbbbbb"]))`), work},
		{"distinct", inJob("jsonencode(distinct(flatten([for i in range(1000) : [for j in range(1000) : j]])))"), work},
		{"a huge number", inJob(`"${1e1000000}"`), "A number has about 996733 digits"},
		{"a huge number from text", inJob(`"${"1e1000000" * 1}"`), "A number has about 996733 digits"},
		{"deep JSON", inJob(`jsonencode(jsondecode(join("", [for i in range(1000) : "["])))`), `Call to function "jsondecode" failed: the JSON nests more than 100 levels deep, the limit (limits.hcl_max_depth)`},
		{"try does not hide it", inJob(`try(jsonencode([for a in range(1000) : [for b in range(1000) : [for c in range(1000) : c]]]), "small")`), work},
		{"a variable's validation", "variable \"v\" {\n  default = 1\n  validation {\n    condition = length([for a in range(1000) : [for b in range(1000) : [for c in range(1000) : c]]]) > 0\n    error_message = \"x\"\n  }\n}\n" + inJob("var.v"), work},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := ParseWithConfig(&ParseConfig{Path: "work.hcl", Body: []byte(tc.src)})
			elapsed := time.Since(start)
			must.ErrorContains(t, err, tc.want)
			// The budget is under a second of one core; this bound
			// leaves room for a loaded machine and still fails a parse
			// that runs unbounded (the nested for alone asks for 10⁹
			// iterations, minutes of CPU).
			must.Less(t, 20*time.Second, elapsed)
			t.Logf("refused after %s", elapsed)
		})
	}
}

// A jobspec with plenty of ordinary computation stays well within the
// default budget.
func TestParse_ordinaryWorkFitsTheBudget(t *testing.T) {
	src := `
locals {
  ports = [for i in range(100) : 8000 + i]
  names = formatlist("web-%03d", range(100))
  table = { for i, n in local.names : n => local.ports[i] }
}
job "j" {
  meta = {
    ports  = jsonencode(local.ports)
    table  = jsonencode(local.table)
    joined = join(",", [for n in local.names : upper(n)])
    nested = jsonencode([for a in range(100) : [for b in range(100) : a * b]])
  }
}
`
	job := mustParseString(t, src)
	must.StrContains(t, job.Meta["joined"], "WEB-099")
}

func TestParse_stopsWhenTheContextEnds(t *testing.T) {
	bomb := inJob("jsonencode([for a in range(1000) : [for b in range(1000) : [for c in range(1000) : c]]])")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ParseWithContext(ctx, &ParseConfig{Path: "j.hcl", Body: []byte(bomb)})
	must.ErrorContains(t, err, "Parse stopped: context canceled")

	start := time.Now()
	_, err = ParseWithContext(context.Background(), &ParseConfig{Path: "j.hcl", Body: []byte(bomb),
		Limits: Limits{EvalTimeout: 50 * time.Millisecond, MaxEvalWork: 1 << 62}})
	must.ErrorContains(t, err, "Evaluating the jobspec takes longer than 50ms, the limit (limits.hcl_eval_timeout)")
	must.Less(t, 20*time.Second, time.Since(start))
}

// Locals are ordered by their references in linear time: a long chain
// written backwards took time in the square of its length.
func TestParse_longChainOfLocals(t *testing.T) {
	const n = 20_000
	var b strings.Builder
	b.WriteString("locals {\n")
	for i := n; i > 0; i-- {
		fmt.Fprintf(&b, "  l%d = local.l%d + 1\n", i, i-1)
	}
	b.WriteString("  l0 = 0\n}\n" + inJob(fmt.Sprintf("local.l%d", n)))
	job := mustParseString(t, b.String())
	must.Eq(t, fmt.Sprint(n), job.Meta["a"])
}

func TestParse_localsUsedWhole(t *testing.T) {
	job := mustParseString(t, "locals {\n  a = 1\n  b = 2\n  k = \"a\"\n  c = local[local.k] + length(keys(local))\n}\n"+inJob("local.c"))
	must.Eq(t, "4", job.Meta["a"])
}
