package e2e

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/drover-io/drover/e2e/agentproc"
)

// TestMain builds the binary once, before any test starts an agent, so a
// build failure is reported once and no test's timing includes it.
func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run()) // every test skips itself
	}
	if _, err := agentproc.Build(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	agentproc.RemoveBinary()
	os.Exit(code)
}
