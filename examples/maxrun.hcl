# The max_run_duration example of the README's tour and the getting
# started guide (website/content/docs/getting-started.md).
#
# The group may run for 10 seconds, counted from the moment the servers
# created the allocation. "maxrun" would sleep for 1000 minutes and is
# killed at the deadline; "maxrun2" finishes on its own after 2 seconds.
# The allocation ends complete with the description
# "allocation exceeded max_run_duration", and the job ends dead.
job "maxrun" {
  type = "batch"

  group "maxrun" {
    max_run_duration = "10s"

    task "maxrun" {
      driver = "raw_exec"

      config {
        command = "/bin/sleep"
        args    = ["1000m"]
      }
    }

    task "maxrun2" {
      driver = "raw_exec"

      config {
        command = "/bin/sleep"
        args    = ["2s"]
      }
    }
  }
}
