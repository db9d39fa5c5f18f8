package exec2

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/internal/waitfor"
)

// A command run in an exec2 task (a template's change_script, a script
// check, alloc exec) is held to the task's unveiled paths as the task is:
// entering the task's namespaces does not lift its Landlock confinement.
func TestExec2_CommandsInTheTaskStayConfined(t *testing.T) {
	requireLandlock(t)
	secret := hostSecret(t)
	d := newTestDriver(t, nil)
	cfg := newShellTask(t, `sleep 60`, nil)
	startTask(t, d, cfg)
	waitfor.True(t, "the task running", func() bool {
		st, err := d.InspectTask(cfg.ID)
		return err == nil && st.State == drivers.TaskStateRunning
	})

	script := fmt.Sprintf(`cat %s && echo READ-SECRET; ls /root && echo LISTED-ROOT; echo ok`, secret)
	res, err := d.ExecTask(context.Background(), cfg.ID, []string{"/bin/sh", "-c", script}, 10*time.Second)
	must.NoError(t, err)
	out := string(res.Output)
	must.StrNotContains(t, out, "READ-SECRET")
	must.StrNotContains(t, out, "LISTED-ROOT")
	must.StrContains(t, out, "Permission denied")
	must.StrContains(t, out, "ok")
}
