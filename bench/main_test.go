package bench

import (
	"os"
	"testing"

	"github.com/drover-io/drover/e2e/agentproc"
)

// TestMain runs a measured agent when asked to (measured_agent_test.go);
// otherwise it runs the benchmarks, then removes the agent binary they
// built, if any.
func TestMain(m *testing.M) {
	if args := os.Getenv(envMeasuredAgent); args != "" {
		os.Exit(runMeasuredAgent(args))
	}
	code := m.Run()
	agentproc.RemoveBinary()
	os.Exit(code)
}
