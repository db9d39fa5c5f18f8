package jobspec2

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that no input panics the parser and that every parse
// ends in exactly one of a job or an error. Plain `go test` runs the seeds
// below and those in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	seeds := []struct{ src, vars string }{
		{src: "job \"a\" {\n}\n"},
		{src: `job "maxrun" { type = "batch" group "g" { max_run_duration = "10s" task "t" { driver = "raw_exec" config { command = "/bin/sleep" args = ["1000m"] } } } }`},
		{src: "variable \"n\" {\n  type = number\n}\njob \"v\" {\n  group \"g\" {\n    count = var.n\n  }\n}\n", vars: "n = 3"},
		{src: "locals {\n  a = local.b\n  b = upper(\"x\")\n}\njob \"l\" {\n  name = local.a\n}\n"},
		{src: "job \"c\" {\n  constraint {\n    attribute = \"${attr.kernel.name}\"\n    value = \"linux\"\n  }\n  constraint {\n    distinct_hosts = true\n  }\n}\n"},
		{src: "job \"p\" {\n  periodic {\n    crons = [\"* * * * *\"]\n    prohibit_overlap = true\n  }\n}\n"},
		{src: "job \"e\" {\n  group \"g\" {\n    task \"t\" {\n      env = { A = \"${NOMAD_ALLOC_ID}\" }\n      meta {\n        b = 1\n      }\n      config {\n        m {\n          x = [1, 2.5, null, true]\n        }\n      }\n    }\n  }\n}\n"},
		{src: "job \"bad\" {\n  group \"g\" {\n    count = \"x\"\n    max_run_duration = \"abc\"\n  }\n}\n"},
		{src: "job \"a\" {}\njob \"b\" {}\n"},
		{src: "variable \"x\" {}\n"},
		{src: "job {\n  group {\n    task {\n    }\n  }\n}\n"},
		{src: "job \"j\" {\n  meta = { a = [for i in range(3) : i] }\n  datacenters = [null]\n}\n"},
		{src: "job \"j\" {\n  name = \"${env[\"X\"]}-${attr.a.b-c}\"\n  region = <<EOT\n%{ for x in [1] }${x}${node.y}%{ endfor }\nEOT\n}\n"},
		{src: "job \"j\" { group \"g\" { count = } }"},
		{src: "}}}{{{ job \"\" ${ %{ <<"},
		{src: "job \"j\" {\n  priority = 1e400\n  group \"g\" {\n    task \"t\" {\n      config {\n        big = 1e400\n      }\n    }\n  }\n}\n"},
		// Limits: nesting, evaluation work, functions that build big.
		{src: "job \"d\" { meta = { a = " + strings.Repeat("[", 200) + " } }"},
		{src: "job \"d\" { meta = { a = " + strings.Repeat("!", 200) + "true } }"},
		{src: "job \"d\" { meta = { a = \"" + strings.Repeat("%{if true}", 120) + "\" } }"},
		{src: "job \"w\" { meta = { a = jsonencode([for a in range(30) : [for b in range(30) : [for c in range(30) : c]]]) } }"},
		{src: "locals {\n  a = \"xx\"\n  b = \"${local.a}${local.a}\"\n  c = local[\"b\"]\n}\njob \"l\" { meta = { a = local.c, b = length(keys(local)) } }"},
		{src: "job \"f\" { meta = { a = format(\"%9999999d\", 1), b = indent(99999999, \"x\\ny\"), c = \"${1e100000}\" } }"},
		{src: "job \"j\" { meta = { a = jsonencode(jsondecode(\"[[[[[[[[[[1]]]]]]]]]]\")), b = regexall(\"(a)(b)?\", \"abab\") } }"},
		// Dynamic blocks, nested and generating labelled blocks; a task
		// outside a group; affinity, spread; Nomad's other functions.
		{src: "job \"y\" {\n  dynamic \"group\" {\n    for_each = {a = 1, b = 2}\n    labels = [group.key]\n    content {\n      count = group.value\n      dynamic \"task\" {\n        for_each = [group.key]\n        labels = [task.value]\n        content {\n          driver = \"raw_exec\"\n          config {\n            dynamic \"m\" {\n              for_each = [1]\n              iterator = group\n              content { x = group.value }\n            }\n          }\n        }\n      }\n    }\n  }\n}\n"},
		{src: "job \"y\" {\n  dynamic \"constraint\" {\n    for_each = range(3)\n    content { attribute = \"${meta.r}\"\n value = constraint.value }\n  }\n  dynamic {\n  }\n  dynamic \"x\" \"y\" { for_each = 1 }\n}\n"},
		// Volumes and their mounts, a duplicate and CSI mount options.
		{src: "job \"v\" {\n  group \"g\" {\n    volume \"a\" {\n      type = \"host\"\n      source = \"a\"\n      per_alloc = true\n      mount_options { mount_flags = [\"ro\"] }\n    }\n    volume \"a\" { read_only = 1 }\n    task \"t\" {\n      driver = \"docker\"\n      volume_mount {\n        volume = \"a\"\n        destination = \"/a\"\n        read_only = true\n      }\n    }\n  }\n}\n"},
		{src: "job \"t\" {\n  task \"solo\" { driver = \"raw_exec\" }\n  affinity {\n    attribute = node.class\n    value = \"c\"\n    weight = -100\n  }\n  spread {\n    attribute = \"${meta.rack}\"\n    target \"r1\" { percent = 50 }\n  }\n}\n"},
		{src: "job \"f\" { meta = { a = uuidv5(\"dns\", \"x\"), b = cidrsubnet(\"10.0.0.0/8\", 8, 2), c = yamlencode(yamldecode(\"a: [1, {b: c}]\")), d = sha256(md5(\"x\")), e = jsonencode(convert([1], list(string))) } }"},
	}
	for _, s := range seeds {
		f.Add([]byte(s.src), s.vars)
	}
	for _, name := range []string{"maxrun.hcl", "lifecycle.hcl", "full.hcl", "variables.hcl"} {
		src, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src, "image_tag = \"1\"")
	}

	f.Fuzz(func(t *testing.T, src []byte, vars string) {
		cfg := &ParseConfig{
			Path:       "fuzz.hcl",
			Body:       append([]byte{}, src...),
			VarContent: vars,
			ArgVars:    []string{"n=1"},
			Envs:       []string{"NOMAD_VAR_image_tag=t"},
			// A small budget keeps each run short, and takes the
			// budget's way out of evaluation often.
			Limits: Limits{MaxEvalWork: 1 << 18},
		}
		job, err := ParseWithConfig(cfg)
		switch {
		case job == nil && err == nil:
			t.Fatal("neither a job nor an error")
		case job != nil && err != nil:
			t.Fatalf("both a job and an error: %v", err)
		case err != nil:
			if err.Error() == "" {
				t.Fatal("empty error text")
			}
		default:
			if _, err := json.Marshal(job); err != nil {
				t.Fatalf("job does not encode: %v", err)
			}
		}
	})
}
