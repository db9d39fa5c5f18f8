package partition

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/drover-io/drover/e2e/agentproc"
)

// TestMain builds the agent binary once, before the cluster starts, so
// that no fault's timing includes the build.
func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run()) // the cluster test skips itself
	}
	if _, err := agentproc.Build(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	agentproc.RemoveBinary()
	os.Exit(code)
}
