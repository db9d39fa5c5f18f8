package exec

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestExec_RunsInItsRoot(t *testing.T) {
	requireIsolation(t)
	d := newTestDriver(t, nil)
	cfg := newShellTask(t, `echo hello; ls /; id -u; cat /proc/self/status | grep -i capbnd`)
	startTask(t, d, cfg)
	res := waitResult(t, d, cfg.ID)
	t.Logf("stdout: %s\nstderr: %s", stdout(t, cfg), stderr(cfg))
	must.Eq(t, 0, res.ExitCode)
}
