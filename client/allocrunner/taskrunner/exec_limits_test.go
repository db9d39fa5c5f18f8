package taskrunner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/client/internal/tasktest"
	"github.com/drover-io/drover/structs"
)

// A task whose environment is within the limits as submitted but past
// them once interpolated fails before its driver is asked, with a setup
// failure that names the largest variables, not a bare E2BIG.
func TestTaskRunner_ExecLimitsAfterInterpolation(t *testing.T) {
	task := testTask("web", map[string]any{"run_for": "1s"})
	task.Meta = map[string]string{"BIG": strings.Repeat("m", 100<<10)}
	task.Env = map[string]string{}
	for i := range 20 {
		task.Env[fmt.Sprintf("COPY%02d", i)] = "${NOMAD_META_BIG}"
	}
	alloc := testAlloc(structs.JobTypeBatch, task)
	submitted := alloc.Job.Copy()
	submitted.Canonicalize()
	must.NoError(t, submitted.Validate(), must.Sprint("within the limits as submitted"))

	h := newHarness(t, alloc)
	h.run()
	ts := h.waitDead()
	must.True(t, ts.Failed)
	must.True(t, ts.StartedAt.IsZero())
	ev := tasktest.LastEvent(ts, structs.TaskSetupFailure)
	must.NotNil(t, ev, must.Sprintf("events: %v", ts.Events))
	must.True(t, ev.FailsTask)
	must.StrHasPrefix(t, "once interpolated, the task's arguments and environment are more than Linux starts a program with: arguments and environment take ", ev.SetupError)
	must.StrContains(t, ev.SetupError, `more than 2093056 (Linux's ARG_MAX of 2 MiB less 4 KiB for the program's path); the largest: env "NOMAD_META_BIG" (102424 bytes), env "COPY00" (102416 bytes), env "COPY01" (102416 bytes)`)
	must.Nil(t, tasktest.LastEvent(ts, structs.TaskStarted))
}
