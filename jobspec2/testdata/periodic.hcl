job "report" {
  type = "batch"

  periodic {
    crons            = ["0 6 * * *", "30 18 * * 1-5"]
    prohibit_overlap = true
    time_zone        = "Europe/Berlin"
  }

  group "report" {
    task "report" {
      driver = "raw_exec"
      config {
        command = "/usr/local/bin/report"
      }
    }
  }
}
