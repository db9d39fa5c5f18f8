# A periodic batch job whose runs can never overlap.
#
# A child job is launched every minute. prohibit_overlap = true skips a
# launch while the previous child is still running; max_run_duration makes
# sure that never happens: each run is killed 45 seconds after its
# allocation was created, and with kill_timeout = "5s" every task is gone
# by 50 seconds, ten seconds before the next launch. The work itself
# (a 1000-minute sleep) stands for a job that sometimes hangs.
#
# The rule: max_run_duration + kill_timeout (+ any shutdown_delay) must be
# shorter than the shortest interval between two launches.
job "periodic-maxrun" {
  type = "batch"

  periodic {
    crons            = ["* * * * *"]
    prohibit_overlap = true
    time_zone        = "UTC"
  }

  group "run" {
    max_run_duration = "45s"

    restart {
      attempts = 0
      mode     = "fail"
    }

    task "work" {
      driver       = "raw_exec"
      kill_timeout = "5s"
      kill_signal  = "SIGTERM"

      config {
        command = "/bin/sh"
        args    = ["-c", "echo run of ${NOMAD_JOB_ID} started; exec /bin/sleep 1000m"]
      }
    }
  }
}
