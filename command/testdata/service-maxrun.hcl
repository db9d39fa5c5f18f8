job "web" {
  type = "service"
  group "frontend" {
    max_run_duration = "1h"
    task "server" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["3600"]
      }
    }
  }
}
