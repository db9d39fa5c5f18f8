package jobspec2

import (
	"testing"

	"github.com/shoenig/test/must"
)

func TestCheckDrivers_Exec(t *testing.T) {
	must.NoError(t, parseCheckingDrivers(`job "j" {
  group "g" {
    task "t" {
      driver = "exec"
      config {
        command  = "/bin/sleep"
        args     = ["1"]
        pid_mode = "host"
        ipc_mode = "private"
        cap_add  = ["net_raw"]
        cap_drop = ["all"]
      }
    }
  }
}`))

	err := parseCheckingDrivers(`job "j" {
  group "g" {
    task "t" {
      driver = "exec"
      config {
        comand   = "/bin/sleep"
        pid_mode = "shared"
      }
    }
  }
}`)
	must.ErrorContains(t, err, `job.hcl:6,9-15: Invalid exec config; Task "t": unsupported config key "comand": did you mean "command"? (supported: command, args, pid_mode, ipc_mode, cap_add, cap_drop)`)
	must.ErrorContains(t, err, `job.hcl:7,9-17: Invalid exec config; Task "t": config key "pid_mode": must be "private" or "host", got "shared"`)
}
