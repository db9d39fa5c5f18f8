package structs

import (
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/internal/filltest"
)

// testCopy fills a value, copies it, and checks that the copy is equal and
// shares nothing with the original.
func testCopy[T any](t *testing.T, copyFn func(*T) *T) {
	t.Helper()
	orig := filltest.New[T]()
	c := copyFn(orig)
	must.Eq(t, orig, c)
	filltest.MustNotShare(t, orig, c)

	var nilValue *T
	must.Nil(t, copyFn(nilValue))
}

func TestCopy_isDeep(t *testing.T) {
	t.Run("Job", func(t *testing.T) { testCopy(t, (*Job).Copy) })
	t.Run("TaskGroup", func(t *testing.T) { testCopy(t, (*TaskGroup).Copy) })
	t.Run("Task", func(t *testing.T) { testCopy(t, (*Task).Copy) })
	t.Run("Allocation", func(t *testing.T) { testCopy(t, (*Allocation).Copy) })
	t.Run("Evaluation", func(t *testing.T) { testCopy(t, (*Evaluation).Copy) })
	t.Run("Node", func(t *testing.T) { testCopy(t, (*Node).Copy) })
	t.Run("JobSummary", func(t *testing.T) { testCopy(t, (*JobSummary).Copy) })
}

func TestAllocation_CopySkipJobSharesOnlyTheJob(t *testing.T) {
	orig := filltest.New[Allocation]()
	c := orig.CopySkipJob()
	must.Eq(t, orig, c)
	must.EqOp(t, orig.Job, c.Job)

	c.Job = nil
	origJob := orig.Job
	orig.Job = nil
	filltest.MustNotShare(t, orig, c)
	orig.Job = origJob
}

func TestTask_CopyDeepCopiesNestedDriverConfig(t *testing.T) {
	orig := &Task{Config: map[string]any{
		"command": "/bin/sh",
		"args":    []any{"-c", "echo hi"},
		"mounts":  []map[string]any{{"source": "a", "options": []string{"ro"}}},
		"labels":  map[string]any{"k": map[string]any{"deep": 1}},
		"ptr":     new(3),
	}}
	c := orig.Copy()
	must.Eq(t, orig, c)
	filltest.MustNotShare(t, orig, c)

	c.Config["args"].([]any)[0] = "changed"
	c.Config["mounts"].([]map[string]any)[0]["options"].([]string)[0] = "rw"
	c.Config["labels"].(map[string]any)["k"].(map[string]any)["deep"] = 2
	*c.Config["ptr"].(*int) = 4
	must.Eq(t, "-c", orig.Config["args"].([]any)[0])
	must.Eq(t, "ro", orig.Config["mounts"].([]map[string]any)[0]["options"].([]string)[0])
	must.Eq(t, 1, orig.Config["labels"].(map[string]any)["k"].(map[string]any)["deep"])
	must.Eq(t, 3, *orig.Config["ptr"].(*int))
}
