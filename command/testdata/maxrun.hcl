job "maxrun" {
  type = "batch"
  group "maxrun" {
    max_run_duration = "10s"
    task "maxrun"  {
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
