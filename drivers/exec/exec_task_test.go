package exec

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shoenig/test/must"

	"github.com/drover-io/drover/drivers"
	"github.com/drover-io/drover/internal/waitfor"
)

// A command run in an exec task (a template's change_script, a script
// check) runs inside the task's isolation, as alloc exec's does: it sees
// the task's root, not the host's files, and its exit code and output
// come back.
func TestExec_CommandsInTheTaskRunInsideItsRoot(t *testing.T) {
	requireIsolation(t)
	d := newTestDriver(t, nil)
	secret := filepath.Join(t.TempDir(), "secret")
	must.NoError(t, os.WriteFile(secret, []byte("host secret"), 0o644))
	cfg := newShellTask(t, `echo inside > /local/marker; sleep 60`)
	startTask(t, d, cfg)
	waitfor.True(t, "the task running, its marker written", func() bool {
		st, err := d.InspectTask(cfg.ID)
		_, statErr := os.Stat(filepath.Join(cfg.TaskDir, "local", "marker"))
		return err == nil && st.State == drivers.TaskStateRunning && statErr == nil
	})

	script := fmt.Sprintf(`cat %s && echo READ-SECRET; cat /local/marker; exit 3`, secret)
	res, err := d.ExecTask(context.Background(), cfg.ID, []string{"/bin/sh", "-c", script}, 10*time.Second)
	must.NoError(t, err)
	must.Eq(t, 3, res.ExitCode)
	must.StrNotContains(t, string(res.Output), "READ-SECRET")
	must.StrContains(t, string(res.Output), "inside")

	// The timeout kills it.
	res, err = d.ExecTask(context.Background(), cfg.ID, []string{"/bin/sleep", "30"}, 200*time.Millisecond)
	must.ErrorIs(t, err, context.DeadlineExceeded)
	must.NotNil(t, res)
}
