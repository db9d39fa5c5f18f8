package taskrunner

import (
	"os"
	"testing"

	"github.com/drover-io/drover/drivers/rawexec"
)

// supervisorTestEnv makes the test binary run raw_exec's supervisor, as
// the agent binary does in production (`drover task-supervisor`): the
// template tests run real raw_exec tasks.
const supervisorTestEnv = "DROVER_TEST_SUPERVISOR"

func TestMain(m *testing.M) {
	if os.Getenv(supervisorTestEnv) == "1" {
		os.Exit(rawexec.SupervisorMain(os.Args[1:]))
	}
	os.Exit(m.Run())
}
