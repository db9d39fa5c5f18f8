package bench

import (
	"os"
	"testing"

	"github.com/drover-io/drover/e2e/agentproc"
)

// TestMain removes the agent binary the benchmarks built, if any, once
// they are done.
func TestMain(m *testing.M) {
	code := m.Run()
	agentproc.RemoveBinary()
	os.Exit(code)
}
