# max_run_duration with a poststop task.
#
# The group may run for 10 seconds. The main task would sleep for 1000
# minutes and is killed at the deadline. A poststop task normally runs once
# every other task has stopped; when the deadline is what stopped them, it
# never starts: its state ends "dead" with no StartedAt. The allocation
# ends complete with the description "allocation exceeded max_run_duration".
#
# Change args to ["2s"] and the main task ends on its own well before the
# deadline: the poststop task then runs and the allocation completes
# normally.
job "maxrun-poststop" {
  type = "batch"

  group "work" {
    max_run_duration = "10s"

    task "main" {
      driver = "raw_exec"

      config {
        command = "/bin/sleep"
        args    = ["1000m"]
      }
    }

    task "cleanup" {
      driver = "raw_exec"

      lifecycle {
        hook = "poststop"
      }

      config {
        command = "/bin/sh"
        args    = ["-c", "echo cleaning up after ${NOMAD_ALLOC_ID}"]
      }
    }
  }
}
