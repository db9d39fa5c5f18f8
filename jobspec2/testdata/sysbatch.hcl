job "sweep" {
  type        = "sysbatch"
  datacenters = ["dc1", "dc2"]
  node_pool   = "batch"
  priority    = 70

  group "sweep" {
    max_run_duration = "1h30m"

    task "sweep" {
      driver = "raw_exec"
      config {
        command = "/usr/local/bin/sweep"
      }
    }
  }
}
