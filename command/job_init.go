package command

import (
	"fmt"
	"strings"
)

// DefaultInitName is the file "job init" writes when given no path.
const DefaultInitName = "example.nomad.hcl"

// JobInitCommand writes an example jobspec.
type JobInitCommand struct{ Meta }

func (c *JobInitCommand) Help() string {
	return strings.TrimSpace(`
Usage: drover job init [path]

  Writes an example batch jobspec to path (default "` + DefaultInitName + `").
  The example bounds its run time with max_run_duration: whatever its tasks
  are doing, the allocation is stopped 30 seconds after it was created.
  An existing file is never overwritten.
`)
}

func (c *JobInitCommand) Synopsis() string { return "Write an example job specification" }

func (c *JobInitCommand) Run(args []string) int {
	flags := c.FlagSet("job init")
	if err := flags.Parse(args); err != nil {
		return 1
	}
	if flags.NArg() > 1 {
		c.Ui.Error("This command takes at most one argument: [path]")
		return 1
	}
	path := DefaultInitName
	if flags.NArg() == 1 {
		path = flags.Arg(0)
	}
	if err := writeNewFile(path, []byte(exampleJob), 0o644); err != nil {
		c.Ui.Error(err.Error())
		return 1
	}
	c.Ui.Output(fmt.Sprintf("Example job file written to %s", path))
	return 0
}

const exampleJob = `# An example batch job. Run it with:
#
#   drover job run example.nomad.hcl
#
# and watch it with "drover job status example".
job "example" {
  # batch work runs to completion; it is not restarted once it succeeds.
  type = "batch"

  # "*" places the job in any datacenter.
  datacenters = ["*"]

  group "work" {
    count = 1

    # The whole group may run for at most 30 seconds, counted from the moment
    # its allocation is created. When time is up every task still running is
    # killed and the allocation completes with the description
    # "allocation exceeded max_run_duration". Only batch and sysbatch jobs
    # accept it.
    max_run_duration = "30s"

    restart {
      attempts = 1
      delay    = "5s"
      mode     = "fail"
    }

    task "countdown" {
      driver = "raw_exec"

      config {
        command = "/bin/sh"
        args    = ["-c", "for i in $(seq 60 -1 1); do echo \"$i\"; sleep 1; done"]
      }

      resources {
        cpu    = 100 # MHz
        memory = 64  # MB
      }
    }
  }
}
`
