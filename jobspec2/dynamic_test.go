package jobspec2

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/api"
)

// TestDynamic_Blocks expands dynamic blocks of the job, a group, a task
// and a driver's config, with the default and a named iterator, labels,
// a nested dynamic block and references kept for the client.
func TestDynamic_Blocks(t *testing.T) {
	job := mustParseString(t, `
variable "racks" {
  default = { a = "r1", b = "r2" }
}
locals {
  mounts = ["/data", "/logs"]
}
job "j" {
  dynamic "constraint" {
    for_each = var.racks
    content {
      attribute = "${meta.rack}"
      operator  = "!="
      value     = "${constraint.value}-${attr.kernel.name}"
    }
  }
  dynamic "group" {
    for_each = ["web", "api"]
    iterator = g
    labels   = [g.value]
    content {
      count = g.key + 1
      task "t" {
        driver = "docker"
        config {
          image = "busybox:1"
          dynamic "mount" {
            for_each = local.mounts
            content {
              type   = "bind"
              source = mount.value
              target = "${mount.value}-${g.value}"
            }
          }
        }
        dynamic "env" {
          for_each = [1]
          content {
            GROUP = upper(g.value)
          }
        }
      }
    }
  }
}`)
	must.Eq(t, []*api.Constraint{
		{LTarget: "${meta.rack}", Operand: "!=", RTarget: "r1-${attr.kernel.name}"},
		{LTarget: "${meta.rack}", Operand: "!=", RTarget: "r2-${attr.kernel.name}"},
	}, job.Constraints)
	must.SliceLen(t, 2, job.TaskGroups)
	must.Eq(t, "web", *job.TaskGroups[0].Name)
	must.Eq(t, 1, *job.TaskGroups[0].Count)
	must.Eq(t, "api", *job.TaskGroups[1].Name)
	must.Eq(t, 2, *job.TaskGroups[1].Count)
	task := job.TaskGroups[1].Tasks[0]
	must.Eq(t, map[string]string{"GROUP": "API"}, task.Env)
	must.Eq[any](t, []any{
		map[string]any{"type": "bind", "source": "/data", "target": "/data-api"},
		map[string]any{"type": "bind", "source": "/logs", "target": "/logs-api"},
	}, task.Config["mount"])
}

func TestDynamic_Errors(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"not a collection", `dynamic "constraint" {
    for_each = 3
    content { attribute = "x" }
  }`, `job.hcl:3,16-17: Invalid dynamic for_each value; for_each must be a map, object, list, set or tuple; got number.`},
		{"no content", `dynamic "constraint" {
    for_each = [1]
  }`, `job.hcl:2,3-23: Missing content block`},
		{"no for_each", `dynamic "constraint" {
    content { attribute = "x" }
  }`, `Missing required argument`},
		{"bad iterator", `dynamic "constraint" {
    for_each = [1]
    iterator = "x"
    content { attribute = "x" }
  }`, `job.hcl:4,16-19: Invalid dynamic iterator`},
		{"unknown attribute of the iterator", `dynamic "constraint" {
    for_each = [1]
    content { attribute = constraint.nope }
  }`, `job.hcl:4,37-42: Unsupported attribute`},
		{"error inside generated block keeps its line", `dynamic "constraint" {
    for_each = [1, 2]
    content {
      attribute = "x"
      bogus     = 1
    }
  }`, `job.hcl:6,7-12: Unsupported argument`},
		{"Nomad block generated", `dynamic "migrate" {
    for_each = [1]
    content { max_parallel = 1 }
  }`, `"migrate" is a Nomad block that Drover does not support yet`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseString(t, "job \"j\" {\n  "+tc.body+"\n}")
			must.ErrorContains(t, err, tc.want)
		})
	}
}

// TestDynamic_Budgeted: each generated block is charged, so a for_each of
// many elements over a large content stops at the budget.
func TestDynamic_Budgeted(t *testing.T) {
	_, err := ParseWithConfig(&ParseConfig{Path: "job.hcl", Limits: Limits{MaxEvalWork: 20_000}, Body: []byte(`job "j" {
  dynamic "constraint" {
    for_each = range(1000)
    content {
      attribute = "${meta.x}"
      value     = "y"
    }
  }
}`)})
	must.ErrorContains(t, err, "limits.hcl_max_eval_work")
}

// TestDynamic_NestedSeesEachOuterElement: a dynamic block in the content
// of another sees the outer element it was generated for, and an inner
// iterator of the same name shadows the outer one.
func TestDynamic_NestedSeesEachOuterElement(t *testing.T) {
	job := mustParseString(t, `job "j" {
  dynamic "group" {
    for_each = ["a", "b"]
    labels   = [group.value]
    content {
      dynamic "constraint" {
        for_each = ["x", "y"]
        content {
          attribute = "${meta.rack}-${group.value}"
          value     = constraint.value
        }
      }
      dynamic "meta" {
        for_each = [1]
        iterator = group
        content {
          n = group.value
        }
      }
      task "t" { driver = "raw_exec" }
    }
  }
}`)
	must.SliceLen(t, 2, job.TaskGroups)
	for i, name := range []string{"a", "b"} {
		tg := job.TaskGroups[i]
		must.Eq(t, name, *tg.Name)
		must.Eq(t, []*api.Constraint{
			{LTarget: "${meta.rack}-" + name, RTarget: "x", Operand: "="},
			{LTarget: "${meta.rack}-" + name, RTarget: "y", Operand: "="},
		}, tg.Constraints)
		must.Eq(t, map[string]string{"n": "1"}, tg.Meta)
	}
}
