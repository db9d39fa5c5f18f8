package jobspec2

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shoenig/test/must"
)

func TestVariables_Sources(t *testing.T) {
	varFile := filepath.Join("testdata", "variables.vars.hcl")
	tests := []struct {
		name        string
		cfg         ParseConfig
		datacenters []string
		count       int
		command     string
		args        []any
		meta        map[string]string
	}{
		{
			name:        "defaults and a -var",
			cfg:         ParseConfig{ArgVars: []string{"image_tag=0.1"}},
			datacenters: []string{"dc1"},
			count:       1,
			command:     "/bin/hello",
			args:        []any{"--name=web-0.1", "HELLO", "${NOMAD_ALLOC_ID}"},
			meta:        map[string]string{"owner": "team-a", "tag": "0.1"},
		},
		{
			name:        "var-file",
			cfg:         ParseConfig{VarFiles: []string{varFile}},
			datacenters: []string{"dc1"},
			count:       4,
			command:     "/bin/hello",
			args:        []any{"--name=web-1.2.3", "HELLO", "${NOMAD_ALLOC_ID}"},
			meta:        map[string]string{"owner": "team-a", "tag": "1.2.3"},
		},
		{
			name: "-var overrides var-file, typed number and list",
			cfg: ParseConfig{
				VarFiles: []string{varFile},
				ArgVars:  []string{"count=3", `datacenters=["dc2","dc3"]`, "greeting=Hi"},
			},
			datacenters: []string{"dc2", "dc3"},
			count:       3,
			command:     "/bin/hi",
			args:        []any{"--name=web-1.2.3", "HI", "${NOMAD_ALLOC_ID}"},
			meta:        map[string]string{"owner": "team-a", "tag": "1.2.3"},
		},
		{
			name: "environment",
			cfg: ParseConfig{Envs: []string{
				"PATH=/usr/bin", "NOMAD_VAR_image_tag=env", "NOMAD_VAR_count=7", "NOMAD_VAR_owner=ops",
				"NOMAD_VAR_undeclared=ignored",
			}, Strict: true},
			datacenters: []string{"dc1"},
			count:       7,
			command:     "/bin/hello",
			args:        []any{"--name=web-env", "HELLO", "${NOMAD_ALLOC_ID}"},
			meta:        map[string]string{"owner": "ops", "tag": "env"},
		},
		{
			name: "DROVER_VAR_ wins over NOMAD_VAR_, var-file wins over both",
			cfg: ParseConfig{
				Envs:     []string{"DROVER_VAR_greeting=Hey", "NOMAD_VAR_greeting=Yo", "NOMAD_VAR_image_tag=env"},
				VarFiles: []string{varFile},
			},
			datacenters: []string{"dc1"},
			count:       4,
			command:     "/bin/hey",
			args:        []any{"--name=web-1.2.3", "HEY", "${NOMAD_ALLOC_ID}"},
			meta:        map[string]string{"owner": "team-a", "tag": "1.2.3"},
		},
		{
			name:        "variable content as the HTTP API sends it",
			cfg:         ParseConfig{VarContent: "image_tag = \"api\"\ncount = 2\n", ArgVars: []string{"count=5"}},
			datacenters: []string{"dc1"},
			count:       5,
			command:     "/bin/hello",
			args:        []any{"--name=web-api", "HELLO", "${NOMAD_ALLOC_ID}"},
			meta:        map[string]string{"owner": "team-a", "tag": "api"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			job := parseTestdata(t, "variables.hcl", &tc.cfg)
			must.Eq(t, tc.datacenters, job.Datacenters)
			must.Eq(t, tc.meta, job.Meta)
			tg := job.TaskGroups[0]
			must.Eq(t, tc.count, *tg.Count)
			must.Eq(t, map[string]any{"command": tc.command, "args": tc.args}, tg.Tasks[0].Config)
		})
	}
}

func TestVariables_Errors(t *testing.T) {
	tests := []struct {
		name string
		cfg  ParseConfig
		want []string
	}{
		{
			name: "no value for a variable without default",
			want: []string{`variables.hcl:12,1-21: Missing value for variable; Variable "image_tag"`},
		},
		{
			name: "wrong type on the command line",
			cfg:  ParseConfig{ArgVars: []string{"image_tag=x", "count=many"}},
			want: []string{`Invalid value for variable; The value for var.count from -var "count=many" is not valid: a number is required`},
		},
		{
			name: "undeclared -var in strict mode",
			cfg:  ParseConfig{ArgVars: []string{"image_tag=x", "nope=1"}, Strict: true},
			want: []string{`Undefined -var variable; A value for variable "nope"`},
		},
		{
			name: "undeclared var-file entry in strict mode",
			cfg:  ParseConfig{ArgVars: []string{"image_tag=x"}, VarContent: "\nnope = 1\n", Strict: true},
			want: []string{`<variables>:2,1-5: Undefined variable; A value for variable "nope"`},
		},
		{
			name: "malformed -var",
			cfg:  ParseConfig{ArgVars: []string{"image_tag"}},
			want: []string{`Invalid -var option; -var "image_tag": expected name=value.`},
		},
		{
			name: "missing var-file",
			cfg:  ParseConfig{ArgVars: []string{"image_tag=x"}, VarFiles: []string{"testdata/nope.vars.hcl"}},
			want: []string{"Failed to read variable file; read testdata/nope.vars.hcl"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Path = filepath.Join("testdata", "variables.hcl")
			job, err := ParseWithConfig(&cfg)
			must.Nil(t, job)
			for _, want := range tc.want {
				must.ErrorContains(t, err, want)
			}
		})
	}
}

func TestVariables_UndeclaredIgnoredWhenNotStrict(t *testing.T) {
	job := parseTestdata(t, "variables.hcl", &ParseConfig{
		ArgVars:    []string{"image_tag=x", "nope=1"},
		VarContent: "other = 2",
	})
	must.Eq(t, "team-a", job.Meta["owner"])
}

func TestVariables_LocalsAndFunctions(t *testing.T) {
	job := mustParseString(t, `
variable "names" {
  type    = list(string)
  default = ["b", "a", "c"]
}

locals {
  # locals may refer to each other in any order
  greeting = "${local.prefix}-${join("+", sort(var.names))}"
  prefix   = upper(substr("drover", 0, 3))
  settings = jsondecode("{\"level\": 3}")
}

job "fn" {
  datacenters = [for n in var.names : "dc-${n}" if n != "c"]
  priority    = max(10, length(var.names) * 20)

  meta = {
    greeting = local.greeting
    level    = local.settings.level
    fallback = coalesce(null, "x")
    keys     = join(",", keys({ b = 1, a = 2 }))
    split    = element(split(",", "p,q,r"), 1)
    trimmed  = trimspace("  t  ")
    formatted = format("%03d", 7)
    replaced = replace("a-b-c", "-", "_")
    encoded  = jsonencode({ k = ["v"] })
    number   = tostring(tonumber("42") + 1)
    lookup   = lookup({ a = "A" }, "b", "default")
  }

  group "g" {
    count = length(range(3))
    task "t" {
      driver = "raw_exec"
      config {
        args = concat(["a"], var.names)
      }
    }
  }
}
`)
	must.Eq(t, []string{"dc-b", "dc-a"}, job.Datacenters)
	must.Eq(t, 60, *job.Priority)
	must.Eq(t, map[string]string{
		"greeting":  "DRO-a+b+c",
		"level":     "3",
		"fallback":  "x",
		"keys":      "a,b",
		"split":     "q",
		"trimmed":   "t",
		"formatted": "007",
		"replaced":  "a_b_c",
		"encoded":   `{"k":["v"]}`,
		"number":    "43",
		"lookup":    "default",
	}, job.Meta)
	must.Eq(t, 3, *job.TaskGroups[0].Count)
	must.Eq(t, map[string]any{"args": []any{"a", "b", "a", "c"}}, job.TaskGroups[0].Tasks[0].Config)
}

func TestVariables_LocalsErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{
			name: "cycle",
			src:  "locals {\n  a = local.b\n  b = local.a\n}\njob \"j\" {}\n",
			want: `job.hcl:2,3-4: Cycle in local values`,
		},
		{
			name: "undeclared variable",
			src:  "locals {\n  a = var.nope\n}\njob \"j\" {}\n",
			want: `job.hcl:2,7-15: Undeclared variable; No variable named "nope" is declared; declare it with a variable "nope" { } block.`,
		},
		{
			name: "duplicate",
			src:  "locals {\n  a = 1\n}\nlocals {\n  a = 2\n}\njob \"j\" {}\n",
			want: `job.hcl:5,3-4: Duplicate local value; Local "a" was already defined at job.hcl:2,3-4.`,
		},
		{
			name: "unknown function",
			src:  "job \"j\" {\n  name = nosuch(1)\n}\n",
			want: `job.hcl:2,10-16: Call to unknown function`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseString(t, tc.src)
			must.ErrorContains(t, err, tc.want)
		})
	}
}

func TestVariables_Validation(t *testing.T) {
	src := `
variable "count" {
  type = number
  validation {
    condition     = var.count > 0
    error_message = "count must be positive"
  }
}
job "v" {
  group "g" {
    count = var.count
  }
}
`
	job, err := ParseWithConfig(&ParseConfig{Path: "job.hcl", Body: []byte(src), ArgVars: []string{"count=2"}})
	must.NoError(t, err)
	must.Eq(t, 2, *job.TaskGroups[0].Count)

	_, err = ParseWithConfig(&ParseConfig{Path: "job.hcl", Body: []byte(src), ArgVars: []string{"count=0"}})
	must.ErrorContains(t, err, "job.hcl:5,21-34: Invalid value for variable; var.count: count must be positive")
}

func TestVariables_FileFunctionNeedsAllowFS(t *testing.T) {
	dir := t.TempDir()
	must.NoError(t, os.WriteFile(filepath.Join(dir, "cmd.txt"), []byte("/bin/date"), 0o600))
	jobPath := filepath.Join(dir, "job.hcl")
	must.NoError(t, os.WriteFile(jobPath, []byte(`
job "f" {
  meta = {
    cmd    = file("cmd.txt")
    exists = fileexists("missing.txt")
  }
}
`), 0o600))

	job, err := ParseWithConfig(&ParseConfig{Path: jobPath, AllowFS: true})
	must.NoError(t, err)
	must.Eq(t, map[string]string{"cmd": "/bin/date", "exists": "false"}, job.Meta)

	_, err = ParseWithConfig(&ParseConfig{Path: jobPath})
	must.ErrorContains(t, err, "file() reads the local file system")
}
