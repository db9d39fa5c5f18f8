package agent

import (
	"os"
	"testing"

	"github.com/drover-io/drover/drivers/rawexec"
)

// supervisorTestEnv makes the test binary run the raw_exec task supervisor,
// as `drover task-supervisor` does: in tests the executable is the test
// binary, which has no such command.
const supervisorTestEnv = "DROVER_AGENT_TEST_SUPERVISOR"

func TestMain(m *testing.M) {
	if os.Getenv(supervisorTestEnv) == "1" {
		os.Exit(rawexec.SupervisorMain(os.Args[1:]))
	}
	if addr := os.Getenv(listenTestEnv); addr != "" {
		os.Exit(listenMain(addr))
	}
	if addr := os.Getenv(healthTestEnv); addr != "" {
		os.Exit(healthMain(addr))
	}
	os.Exit(m.Run())
}

// testSupervisorCmd runs this test binary as the task supervisor.
func testSupervisorCmd() []string {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return []string{"/usr/bin/env", supervisorTestEnv + "=1", exe}
}
