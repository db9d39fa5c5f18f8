# A sysbatch job: one allocation on every eligible client node, each run
# to completion once.
#
# Each allocation prints the name of its node and sleeps for 5 seconds.
# max_run_duration bounds each allocation separately, counted from its
# own creation: a node where the work hangs is cut off after 30 seconds
# without affecting the others.
job "sysbatch" {
  type = "sysbatch"

  group "per-node" {
    max_run_duration = "30s"

    task "report" {
      driver = "raw_exec"

      config {
        command = "/bin/sh"
        args    = ["-c", "echo running on ${node.unique.name}; sleep 5"]
      }

      resources {
        cpu    = 50
        memory = 32
      }
    }
  }
}
