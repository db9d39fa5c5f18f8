package rawexec

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/drover-io/drover/drivers"
)

// The test binary doubles as the supervisor and as a disposable agent, as
// the agent binary does in production (`drover task-supervisor`).
const (
	// supervisorTestEnv makes the test binary run SupervisorMain.
	supervisorTestEnv = "DROVER_TEST_SUPERVISOR"
	// agentTestEnv makes the test binary a throwaway agent: it starts the
	// task config at the given path with a raw_exec driver, writes the
	// handle next to it and waits to be killed.
	agentTestEnv = "DROVER_TEST_AGENT"
)

func TestMain(m *testing.M) {
	if os.Getenv(supervisorTestEnv) == "1" {
		os.Exit(SupervisorMain(os.Args[1:]))
	}
	if path := os.Getenv(agentTestEnv); path != "" {
		os.Exit(runTestAgent(path))
	}
	os.Exit(m.Run())
}

func runTestAgent(cfgPath string) int {
	var cfg drivers.TaskConfig
	b, err := os.ReadFile(cfgPath)
	if err == nil {
		err = json.Unmarshal(b, &cfg)
	}
	if err != nil {
		os.Stderr.WriteString(err.Error())
		return 1
	}
	h, err := New(nil, testDriverConfig()).StartTask(&cfg)
	if err != nil {
		os.Stderr.WriteString(err.Error())
		return 1
	}
	b, _ = json.Marshal(h)
	if err := writeJSONPath(cfgPath+".handle", json.RawMessage(b)); err != nil {
		os.Stderr.WriteString(err.Error())
		return 1
	}
	// The throwaway agent now waits to be SIGKILLed, as an agent that
	// crashes is; the hour only bounds it should the test die first.
	time.Sleep(time.Hour)
	return 0
}

func testDriverConfig() Config {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return Config{
		Enabled:       true,
		SupervisorCmd: []string{"/usr/bin/env", supervisorTestEnv + "=1", exe},
	}
}
