package drivers

import (
	"testing"
	"time"

	"github.com/shoenig/test/must"
)

func TestRunStatus(t *testing.T) {
	cfg := &TaskConfig{ID: "a/web/1", Name: "web"}
	start := time.Unix(100, 0)
	attrs := map[string]string{"pid": "7"}

	running := RunStatus(cfg, start, time.Time{}, nil, attrs)
	must.Eq(t, &TaskStatus{ID: "a/web/1", Name: "web", State: TaskStateRunning, StartedAt: start, DriverAttributes: attrs}, running)

	end, res := start.Add(time.Second), &ExitResult{ExitCode: 3}
	exited := RunStatus(cfg, start, end, res, attrs)
	must.Eq(t, TaskStateExited, exited.State)
	must.Eq(t, end, exited.CompletedAt)
	must.Eq(t, res, exited.ExitResult)
}
