package exec2

import (
	"os"
	"testing"

	"github.com/drover-io/drover/drivers/exec/isolate"
	"github.com/drover-io/drover/drivers/rawexec"
)

// The test binary doubles as the task supervisor and as the isolated
// task's init, as the agent's binary does in production.
const supervisorTestEnv = "DROVER_TEST_SUPERVISOR"

func TestMain(m *testing.M) {
	if isolate.IsInit(os.Args[1:]) {
		os.Exit(isolate.InitMain())
	}
	if os.Getenv(supervisorTestEnv) == "1" {
		os.Exit(rawexec.SupervisorMain(os.Args[1:]))
	}
	os.Exit(m.Run())
}
